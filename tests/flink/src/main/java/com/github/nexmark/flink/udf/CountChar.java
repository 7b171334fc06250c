/*
 * CountChar - Nexmark q14's user-defined function for the Flink side of `make
 * bench-nexmark` (bench/nexmark/bench.sh): q14 declares it by this class name, as
 * the nexmark jar on Flink's class path provides it. Written here from its
 * behaviour (sluice's twin: bench/nexmark/udf/nexmark_udf.c): count_char(s, c) is
 * the number of characters of s equal to the first character of c, 0 for a NULL s.
 */
package com.github.nexmark.flink.udf;

import org.apache.flink.table.functions.ScalarFunction;

public class CountChar extends ScalarFunction {
	public long eval(String s, String character) {
		if (s == null)
			return 0;
		char want = character.charAt(0);
		long n = 0;
		for (int i = 0; i < s.length(); i++)
			if (s.charAt(i) == want)
				n++;
		return n;
	}
}
