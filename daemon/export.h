/* The metrics on the daemon's side: the exposition of its state (for the
 * "metrics" op and Export=), and the node_exporter textfile written every
 * StoreInterval.
 *
 * node_exporter's textfile collector reads every *.prom file of its
 * directory at each scrape; a file caught half written would be a scrape
 * of half the metrics, or an error.  So the text goes to PATH.tmp (a name
 * the collector does not read) beside it, then a rename puts it in place
 * at once. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"

struct gpu_snapshot;
struct core_status;
struct watched;

/* What the textfile writer remembers between two writes. */
struct export_state {
	char *path;      /* the Export= path the rest is about; NULL before the first */
	bool written;    /* a file was written there: removed when Export= moves or goes */
	int error;       /* the last write: 0, or its -errno (logged once per change) */
	uint64_t errors; /* writes that failed, over the daemon's life */
};

/* Forgets the path (not the file, nor the count of errors).  Accepts
 * NULL. */
void export_state_done(struct export_state *s);

/* Writes len bytes of text to path atomically for its readers: into
 * PATH.tmp (a stale one is replaced; a symbolic link there is not
 * followed), mode 0644 whatever the umask (node_exporter runs as another
 * user), then renamed over path.  Returns 0, or a negative errno with the
 * step that failed in *ret_step ("create", "write", "rename"). */
int export_write_file(const char *path, const char *text, size_t len, const char **ret_step);

/* The metrics exposition of the daemon's state: the processes of w (the
 * per-group families only those of only_uid, -1: all, and of the account
 * only_owner, NULL: none, as store_owner_visible says), the daemon's
 * counters from st, GPU memory from gpu (NULL: none).  Returns 0 with
 * *ret (the caller's to free) and its length, or -ENOMEM. */
int export_metrics_text(const struct watched *w, const struct core_status *st, enum export_group_by by,
			const struct gpu_snapshot *gpu, int64_t only_uid, const char *only_owner, char **ret,
			size_t *ret_len);

/* Builds the text of the textfile: as export_metrics_text. */
typedef int (*export_build_t)(void *userdata, char **ret, size_t *ret_len);

/* Writes Export='s textfile at path (NULL: there is none), with the text
 * build makes (called only when there is a path), removing the one an
 * earlier path named.  Failures are counted in s->errors and logged once
 * per change. */
void export_textfile(struct export_state *s, const char *path, export_build_t build, void *userdata);
