/* Rendering censuses for people: the scan table, Markdown, the list of every
 * region, and the comparison of two censuses. */
#pragma once

#include <stdbool.h>
#include <stdio.h>

struct census;

enum render_format {
	RENDER_TEXT,
	RENDER_MARKDOWN,
};

struct render_options {
	enum render_format format;
	size_t top;   /* largest regions and files shown */
	bool regions; /* list every region instead of the largest */
	bool gpu_asked; /* --gpu: say why GPU memory is missing even for a process
			 * that maps no NVIDIA device */
};

/* Prints the census.  Returns 0 or -EIO. */
int render_census(const struct census *c, const struct render_options *o, FILE *f);

/* Prints the comparison of two censuses: class by class, private and
 * resident before, after and change, largest changes first; then the files
 * that appeared or went away.  Returns 0 or -EIO. */
int render_diff(const struct census *a, const struct census *b, const struct render_options *o, FILE *f);
