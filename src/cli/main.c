/*
 * main.c - the sluice command (placeholder entry until the CLI lands).
 */
#include "sluice.h"
#include <stdio.h>
int main(void)
{
	fprintf(stderr, "sluice: CLI not built yet\n");
	return 2;
}
