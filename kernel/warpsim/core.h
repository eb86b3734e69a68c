/* SPDX-License-Identifier: MIT */
/*
 * warpsim core services: simulated time, errors, events with owners,
 * per-component random streams, warnings and a small JSON writer.
 *
 * Everything here takes a `struct ws_sim *`: the kernel keeps no global
 * state, so several simulations can live in one process (and on several
 * threads, one simulation per thread).
 */
#ifndef WARPSIM_CORE_H
#define WARPSIM_CORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * WS_API marks what libwarpsim exports: the library is built with hidden
 * visibility, so a function is part of the API exactly when its public
 * declaration carries this mark (tests/golden/abi.txt lists them).
 */
#if defined(__GNUC__)
#define WS_API __attribute__((visibility("default")))
#define WS_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define WS_API
#define WS_PRINTF(a, b)
#endif

/* ---- time ------------------------------------------------------------- */

/* Simulated time: an unsigned count of picoseconds (2^64 ps = 213 days). */
typedef uint64_t ws_time;

#define WS_PS ((ws_time)1)
#define WS_NS ((ws_time)1000)
#define WS_US ((ws_time)1000000)
#define WS_MS ((ws_time)1000000000)
#define WS_SEC ((ws_time)1000000000000ull)
#define WS_TIME_NEVER UINT64_MAX

/* Time to serialize `bytes` at `rate_bps`, rounded down to a picosecond. */
static inline ws_time ws_tx_time(uint64_t bytes, uint64_t rate_bps)
{
	__extension__ typedef unsigned __int128 ws_u128;
	return (ws_time)((ws_u128)bytes * 8u * WS_SEC / rate_bps);
}

/* Bytes sent in `t` at `rate_bps`, rounded down. */
static inline uint64_t ws_bytes_in(ws_time t, uint64_t rate_bps)
{
	__extension__ typedef unsigned __int128 ws_u128;
	return (uint64_t)((ws_u128)t * rate_bps / (8u * WS_SEC));
}

/* ---- errors ----------------------------------------------------------- */

#define WS_OK 0
#define WS_EINVAL (-1)  /* bad input: config, trace file, parameter value */
#define WS_ENOENT (-2)  /* a file or plugin that does not exist */
#define WS_ENOMEM (-3)  /* out of memory */
#define WS_EIO (-4)     /* reading or writing a file failed */
#define WS_EPLUGIN (-5) /* a plugin broke its contract (ABI, callbacks) */
#define WS_ESTATE (-6)  /* the simulation reached an impossible state */
/* ---- ABI 2.1 ---- */
#define WS_EDEADLOCK (-7) /* a cycle of PFC pauses stopped the fabric for good */
/* ---- ABI 2.3 ---- */
#define WS_EUNREACH (-8)  /* no route: failures cut the destination off */

/*
 * What went wrong, for a person: the file and line it comes from (when it
 * comes from a file), the "section.key" concerned (when a key), and a
 * sentence.  Functions that can fail return 0 or a negative WS_E* code and
 * fill one of these.
 */
struct ws_err {
	int code;
	int line;          /* 0: no line */
	char file[512];    /* "": no file */
	char key[128];     /* "": no key */
	char msg[1024];
};


/* Fill `err` (which may be NULL) and return `code`. */
WS_API int ws_err_set(struct ws_err *err, int code, const char *fmt, ...) WS_PRINTF(3, 4);
/* Same, with the file and line the error comes from. */
WS_API int ws_err_at(struct ws_err *err, int code, const char *file, int line,
		     const char *fmt, ...) WS_PRINTF(5, 6);
/* Same, naming the parameter concerned: a plugin's own key ("eta"), or
 * "section.key"; the kernel adds the section, and the file and line where
 * the key was set, when it reports a plugin's error. */
WS_API int ws_err_key(struct ws_err *err, int code, const char *key,
		      const char *fmt, ...) WS_PRINTF(4, 5);
/* Empty every field: code 0, no line, "" strings. */
WS_API void ws_err_clear(struct ws_err *err);
/* Put text before the message ("[topology] fat-tree: " + msg). */
WS_API void ws_err_prefix(struct ws_err *err, const char *fmt, ...) WS_PRINTF(2, 3);
/* Set the file and line an error comes from. */
WS_API void ws_err_locate(struct ws_err *err, const char *file, int line);
/* "file:line: message" (or less when there is no file); returns strlen. */
WS_API size_t ws_err_format(const struct ws_err *err, char *buf, size_t size);

/*
 * Structs the caller allocates and passes in or out (options, flow specs,
 * flow and port facts, statistics) start with `uint32_t size`: the caller
 * sets it to sizeof the struct it was compiled with, so the ABI can append
 * fields.  The kernel reads an input struct up to `size` (missing fields
 * read as zero; fields it does not know must be zero) and writes an output
 * struct up to `size`.  A size of 0 is refused.
 *     struct ws_sim_stats st = { WS_INIT_SIZE(struct ws_sim_stats) };
 */
#define WS_INIT_SIZE(type) .size = (uint32_t)sizeof(type)

/* ---- the simulation --------------------------------------------------- */

struct ws_sim;

WS_API ws_time ws_now(const struct ws_sim *sim);
WS_API uint64_t ws_sim_seed(const struct ws_sim *sim);

/* Count a warning and hand it to the program (ws_opts.on_warning). */
WS_API void ws_warn(struct ws_sim *sim, const char *fmt, ...) WS_PRINTF(2, 3);

/*
 * Stop the run with an error.  For callbacks that have no error return
 * (a routing rule that finds no port, a workload whose DAG is broken): the
 * event loop stops after the current event and the run reports `err`.
 */
WS_API void ws_fail(struct ws_sim *sim, const struct ws_err *err);
WS_API bool ws_failed(const struct ws_sim *sim);

/*
 * Resolve a path written in the configuration: relative paths are taken
 * relative to the directory of the ini file that named them.
 */
WS_API int ws_resolve_path(const struct ws_sim *sim, const char *path, char *out,
			   size_t size, struct ws_err *err);

/*
 * For plugins that read text inputs (traces, topology files): a strict
 * unsigned decimal (digits only: no sign, no spaces, no overflow), and
 * whether a line is blank or a '#' comment.
 */
WS_API bool ws_text_u64(const char *s, uint64_t *out);
WS_API bool ws_text_blank(const char *line);
/* ---- ABI 2.1 ---- */
/*
 * Read one line of a text input (a flow trace, a topology file) into
 * *buf (grown as needed, up to `max` bytes plus the terminator; the
 * newline and a carriage return before it removed).  Returns 1 with a
 * line, 0 at the end of the file, or a negative WS_E* code with `err`
 * naming `file` and the line number `*lineno` (counted here): a line
 * longer than `max` bytes, a NUL byte, a read error.
 */
#define WS_TEXT_LINE_MAX 65536
WS_API int ws_text_line(FILE *f, char **buf, size_t *cap, size_t max,
			const char *file, int *lineno, struct ws_err *err);

/*
 * Statistics over samples, one definition for every figure warpsim prints:
 * sort ascending, then the nearest-rank percentile (the value at rank
 * ceil(pct/100 x n) of the sorted values, at least the first; NaN if n is 0).
 */
WS_API void ws_sort_doubles(double *v, size_t n);
/* A time as the output files write it: nanoseconds with three decimals,
 * exact to the picosecond ("1234.567"); returns the length. */
WS_API size_t ws_fmt_ps_as_ns(char *buf, size_t n, ws_time t);
WS_API double ws_percentile(const double *sorted, size_t n, double pct);

/* ---- events ----------------------------------------------------------- */

typedef void (*ws_event_fn)(struct ws_sim *sim, void *obj, uint64_t arg);

struct ws_event;

/*
 * Every pending event may belong to an owner (a port, a flow, or anything a
 * plugin embeds one in).  Owners can be frozen: their events are parked, and
 * when thawed they return with their times shifted by a chosen delta.
 * Acceleration plugins use this to skip stretches of packet-level work.
 */
struct ws_owner {
	struct ws_event *parked; /* its events, while frozen */
	uint32_t n_parked;
	uint32_t frozen;         /* nonzero while frozen */
};

/* A handle to a scheduled event, valid until it runs or is cancelled. */
struct ws_evh {
	struct ws_event *ev;
	uint64_t seq;
};

/*
 * Schedule fn(sim, obj, arg) at absolute time `when` (>= now).  Events run
 * in (time, scheduling order) order, so a run is deterministic.
 */
WS_API struct ws_evh ws_schedule(struct ws_sim *sim, ws_time when, ws_event_fn fn,
				 void *obj, uint64_t arg);
WS_API struct ws_evh ws_schedule_owned(struct ws_sim *sim, struct ws_owner *owner,
				       ws_time when, ws_event_fn fn, void *obj,
				       uint64_t arg);
/* Cancel a pending event; false if it already ran or was cancelled. */
WS_API bool ws_cancel(struct ws_sim *sim, struct ws_evh h);
WS_API bool ws_pending(const struct ws_sim *sim, struct ws_evh h);
/* The time a pending event will run at (WS_TIME_NEVER if not pending). */
WS_API ws_time ws_event_time(const struct ws_sim *sim, struct ws_evh h);
/* Events scheduled and not yet run or cancelled (parked ones included). */
WS_API uint64_t ws_pending_events(const struct ws_sim *sim);

/*
 * Freeze: park every pending event of these owners (a scan of the pending
 * events: freezing is for acceleration, not the run path); events scheduled
 * for a frozen owner are parked too.  Thaw: put them back with their times
 * increased by `shift` (never before now), in their original relative order.  Kernel-owned
 * owners (ports, flows) should be frozen through ws_freeze_ports_flows(),
 * which also shifts the kernel's own timestamps.
 */
WS_API int ws_owners_freeze(struct ws_sim *sim, struct ws_owner *const *owners,
			    size_t n, struct ws_err *err);
WS_API int ws_owners_thaw(struct ws_sim *sim, struct ws_owner *const *owners,
			  size_t n, ws_time shift, struct ws_err *err);

/* ---- ABI 2.1 ---- */
/*
 * Refuse the impossible before allocating it: a plugin about to allocate
 * for what its parameters ask hands its estimate, `bytes` of its own and
 * `flows` flows it will create (the kernel adds what each costs), and gets
 * WS_ENOMEM with `err` saying "WHAT needs an estimated N GB, more than the
 * M GB available" when it passes the program's limit (ws_opts.max_memory),
 * the machine's available memory or the address-space limit.  Name the
 * parameters in `what` ("micro_batches x iterations = ...").
 */
WS_API int ws_mem_check(struct ws_sim *sim, uint64_t bytes, uint64_t flows,
			const char *what, struct ws_err *err);

/* ---- randomness ------------------------------------------------------- */

/*
 * One stream per component, seeded from (run seed, stable component id), so
 * adding a flow or a plugin never changes the draws of unrelated components.
 */
struct ws_rng {
	uint64_t state;
};

#define WS_RNG_PORT 1u
#define WS_RNG_FLOW 2u
#define WS_RNG_PLUGIN 3u
#define WS_RNG_ID(kind, index) (((uint64_t)(kind) << 56) | (uint64_t)(index))

WS_API void ws_rng_seed(struct ws_rng *rng, uint64_t run_seed, uint64_t component_id);
WS_API uint64_t ws_rng_next(struct ws_rng *rng);
/* Uniform in [0, 1). */
WS_API double ws_rng_uniform(struct ws_rng *rng);
/* Uniform in [0, n), n > 0. */
WS_API uint64_t ws_rng_below(struct ws_rng *rng, uint64_t n);
/* ---- ABI 2.3 ---- */
/* SplitMix64's finalizer (Steele, Lea, Flood 2014): a cheap, well-mixed
 * hash of one 64-bit value, the generator above applies it to its state;
 * for plugins' hash tables and keyed choices. */
static inline uint64_t ws_mix64(uint64_t x)
{
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

/* ---- JSON writer (for plugins' counters in summary.json) -------------- */

struct ws_json;

WS_API void ws_json_u64(struct ws_json *j, const char *key, uint64_t v);
WS_API void ws_json_i64(struct ws_json *j, const char *key, int64_t v);
WS_API void ws_json_f64(struct ws_json *j, const char *key, double v);
WS_API void ws_json_str(struct ws_json *j, const char *key, const char *v);
WS_API void ws_json_bool(struct ws_json *j, const char *key, bool v);
/* Nested object; key is NULL inside arrays. */
WS_API void ws_json_begin(struct ws_json *j, const char *key);
WS_API void ws_json_end(struct ws_json *j);
WS_API void ws_json_begin_array(struct ws_json *j, const char *key);
WS_API void ws_json_end_array(struct ws_json *j);

#ifdef __cplusplus
}
#endif
#endif
