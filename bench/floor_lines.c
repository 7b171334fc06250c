/*
 * floor_lines.c - the floor of the file benchmark: what reading the file
 * and splitting it into lines costs, with nothing else.
 *
 * Usage: floor_lines FILE   (prints the number of lines)
 *
 * It does what sluice's line reader must do at least: read(2) in 1 MiB
 * blocks and find each '\n' with memchr.  Rows per CPU-second of this
 * program bound from above what any JSON pipeline over the same file can
 * reach on this machine.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BLOCK (1 << 20)

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: floor_lines FILE\n");
		return 2;
	}
	int fd = open(argv[1], O_RDONLY);
	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}
	char *buf = malloc(BLOCK);
	if (!buf)
		return 1;
	long long lines = 0;
	ssize_t n;
	while ((n = read(fd, buf, BLOCK)) > 0) {
		const char *p = buf, *e = buf + n;
		while ((p = memchr(p, '\n', (size_t)(e - p)))) {
			lines++;
			p++;
		}
	}
	if (n < 0) {
		perror("read");
		return 1;
	}
	close(fd);
	free(buf);
	printf("%lld\n", lines);
	return 0;
}
