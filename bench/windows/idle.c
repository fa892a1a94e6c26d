/* A process that holds nothing and waits for its standard input to close:
 * one of the many a snapshot of every process counts (snapshot-bench.py). */
#include <stdio.h>

int main(void)
{
	char line[64];
	while (fgets(line, sizeof(line), stdin))
		;
	return 0;
}
