/* SPDX-License-Identifier: MIT */
/*
 * What the parts of `warpsim plot` share (plot.c: runs and --cc;
 * plot_sweep.c: a sweep's results.csv): the line styles every figure uses
 * and running gnuplot with its messages kept out of the terminal.
 */
#ifndef WS_TOOLS_PLOT_H
#define WS_TOOLS_PLOT_H

#include <stdbool.h>
#include <stdio.h>

/* Distinct line styles defined by plot_styles(): 8 colours x 6 dash types,
 * each with its own point type; series k uses style k % PLOT_STYLES + 1. */
#define PLOT_STYLES 48

/* The options of `warpsim plot` (plot.c parses them). */
struct plot_args {
	const char *out;
	const char *x, *y, *by; /* sweep figures: the columns of results.csv */
	const char *flows;      /* --cc: flow ids to draw, comma-separated */
	unsigned top;           /* --cc: series per figure when not named */
	bool png, data_only, cc;
};

/* `set style line 1..PLOT_STYLES` into a gnuplot script. */
void plot_styles(FILE *f);
/* gnuplot on DIR/plot.gp (or the data and the script only); prints where
 * the figures are; 0 or the exit status.  gnuplot's own messages go to
 * DIR/gnuplot.log, shown only when it fails. */
int plot_render(const char *dir, const struct plot_args *a);
/* A label as gnuplot draws it: quotes and underscores replaced. */
void plot_label(char *s);
/* `warpsim plot SWEEPDIR` (a directory with results.csv). */
int plot_sweep(const char *dir, const struct plot_args *a);

#endif
