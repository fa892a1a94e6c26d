/* SAMPLE_COLUMNS and SAMPLE_FIGURES (sample-row.h) as arrays, for the code
 * that walks them at run time (the CSV of ramwatch history, the metrics)
 * and for the tests that check every column reached every place. */
#include "sample-row.h"

#define YES_NO_yes true
#define YES_NO_no false

#define COLUMN_INFO(name, ctype, sqltype, figure, how, unit, key, csv, views, help)                        \
	[SAMPLE_COLUMN_##name] = { #name, #ctype, sqltype, #figure, SAMPLE_##how, unit, key, YES_NO_##csv, views, \
				   help },
const struct sample_column_info sample_columns[_SAMPLE_N_COLUMNS] = { SAMPLE_COLUMNS(COLUMN_INFO) };

#define FIGURE_INFO(name, metric, help) [SAMPLE_FIGURE_##name] = { #name, YES_NO_##metric, help },
const struct sample_figure_info sample_figures[_SAMPLE_N_FIGURES] = { SAMPLE_FIGURES(FIGURE_INFO) };
