/* SPDX-License-Identifier: MIT */
/*
 * json-libs.c: the measurement behind reading summary.json with jansson
 * (tools/jsonin.c; issue 30 item 6).  Built twice by bench/json-libs.sh,
 * with -DLIB_JANSSON and with -DLIB_JSONC (their headers cannot meet in
 * one file); each binary prints, for its library:
 *   - the best of REPS parses of FILE (a large summary.json): ms and MB/s;
 *   - what it does with inputs a strict reader must refuse or must read
 *     (integers beyond 2^63, duplicate keys, trailing commas, NaN, ...);
 *   - jansson only: whether dumping the parsed FILE gives its bytes back
 *     (could ws_json_* be written over the library?): lines that differ.
 * usage: json-libs-jansson FILE REPS | json-libs-jsonc FILE REPS
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef LIB_JANSSON
#include <jansson.h>
#define LIB "jansson " JANSSON_VERSION
#else
#include <json-c/json.h>
#define LIB "json-c " JSON_C_VERSION
#endif

static const char *const probes[][2] = {
	{ "u64 max", "{\"a\": 18446744073709551615}" },
	{ "2^63", "{\"a\": 9223372036854775808}" },
	{ "beyond u64", "{\"a\": 99999999999999999999999}" },
	{ "1e400", "{\"a\": 1e400}" },
	{ "duplicate key", "{\"a\": 1, \"a\": 2}" },
	{ "trailing comma", "{\"a\": 1,}" },
	{ "line end in string", "{\"a\": \"x\ny\"}" },
	{ "text after", "{\"a\": 1} x" },
	{ "leading zero", "{\"a\": 012}" },
	{ "1.", "{\"a\": 1.}" },
	{ "NaN", "{\"a\": NaN}" },
	{ "truncated", "{\"a\": [1, 2" },
};

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static char *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	*n = (size_t)ftell(f);
	rewind(f);
	char *buf = malloc(*n + 1);
	if (buf && fread(buf, 1, *n, f) != *n) {
		free(buf);
		buf = NULL;
	}
	if (buf)
		buf[*n] = '\0';
	fclose(f);
	return buf;
}

#ifdef LIB_JANSSON
/* 1: parsed; the value of "a" (or the error) into out */
static int parse(const char *s, size_t n, char *out, size_t on, void **doc)
{
	json_error_t e;
	json_t *r = json_loadb(s, n, JSON_REJECT_DUPLICATES, &e);
	if (!r) {
		snprintf(out, on, "refused: %d:%d: %s", e.line, e.column, e.text);
		return 0;
	}
	json_t *a = json_object_get(r, "a");
	if (json_is_integer(a))
		snprintf(out, on, "read: %" JSON_INTEGER_FORMAT, json_integer_value(a));
	else if (json_is_real(a))
		snprintf(out, on, "read: %.17g", json_real_value(a));
	else
		snprintf(out, on, "read");
	if (doc)
		*doc = r;
	else
		json_decref(r);
	return 1;
}

static void release(void *doc)
{
	json_decref(doc);
}

/* the lines of `text` that dumping it again changes */
static void round_trip(const char *text, size_t n)
{
	json_t *r = json_loadb(text, n, 0, NULL);
	if (!r)
		return;
	char *d = json_dumps(r, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
	size_t lines = 0, differ = 0;
	const char *a = text, *b = d;
	while (*a || *b) {
		size_t la = strcspn(a, "\n"), lb = strcspn(b, "\n");
		lines++;
		if (la != lb || memcmp(a, b, la)) {
			if (differ < 3)
				printf("    differs: '%.*s' -> '%.*s'\n", (int)(la < 60 ? la : 60),
				       a, (int)(lb < 60 ? lb : 60), b);
			differ++;
		}
		a += la + (a[la] == '\n');
		b += lb + (b[lb] == '\n');
	}
	printf("  dump of the parsed file: %zu of %zu lines differ from the file\n", differ,
	       lines);
	free(d);
	json_decref(r);
	/* what ws_json_f64 and ws_json_u64 write, and what jansson would */
	static const double f64[] = { 2.0, 0.1, 1e20, 1.0 / 3 };
	for (size_t i = 0; i < sizeof f64 / sizeof *f64; i++) {
		json_t *v = json_real(f64[i]);
		char *t = json_dumps(v, JSON_ENCODE_ANY | JSON_REAL_PRECISION(10));
		printf("  f64 %.10g: ws_json_f64 writes %.10g, jansson %s\n", f64[i], f64[i], t);
		free(t);
		json_decref(v);
	}
	json_t *nan = json_real(0.0 / 0.0);
	printf("  f64 NaN: ws_json_f64 writes null, jansson %s\n",
	       nan ? "a value" : "has no NaN (json_real returns NULL)");
	json_decref(nan);
	printf("  u64 18446744073709551615: ws_json_u64 writes it, jansson's integers "
	       "stop at %" JSON_INTEGER_FORMAT "\n", (json_int_t)INT64_MAX);
}
#else
static int parse(const char *s, size_t n, char *out, size_t on, void **doc)
{
	struct json_tokener *t = json_tokener_new();
	json_tokener_set_flags(t, JSON_TOKENER_STRICT);
	json_object *r = json_tokener_parse_ex(t, s, (int)n);
	if (!r || json_tokener_get_parse_end(t) != n) {
		snprintf(out, on, "refused: offset %zu: %s", json_tokener_get_parse_end(t),
			 json_tokener_error_desc(json_tokener_get_error(t)));
		json_object_put(r);
		json_tokener_free(t);
		return 0;
	}
	json_tokener_free(t);
	json_object *a = NULL;
	json_object_object_get_ex(r, "a", &a);
	if (json_object_is_type(a, json_type_int))
		snprintf(out, on, "read: %" PRIu64, json_object_get_uint64(a));
	else if (json_object_is_type(a, json_type_double))
		snprintf(out, on, "read: %.17g", json_object_get_double(a));
	else
		snprintf(out, on, "read");
	if (doc)
		*doc = r;
	else
		json_object_put(r);
	return 1;
}

static void release(void *doc)
{
	json_object_put(doc);
}

static void round_trip(const char *text, size_t n)
{
	(void)text;
	(void)n;
}
#endif

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: %s FILE REPS\n", argv[0]);
		return 2;
	}
	size_t n;
	char *text = slurp(argv[1], &n), msg[200];
	int reps = atoi(argv[2]);
	if (!text) {
		fprintf(stderr, "%s: cannot read\n", argv[1]);
		return 2;
	}
	double best = 1e30;
	for (int r = 0; r < reps; r++) {
		void *doc = NULL;
		double t0 = now();
		if (!parse(text, n, msg, sizeof msg, &doc)) {
			printf("%s: %s: %s\n", LIB, argv[1], msg);
			return 1;
		}
		double t = now() - t0;
		release(doc);
		best = t < best ? t : best;
	}
	printf("%s\n  parse of %.1f MB: %.1f ms CPU (best of %d), %.0f MB/s\n", LIB,
	       (double)n / 1e6, best * 1e3, reps, (double)n / 1e6 / best);
	for (size_t i = 0; i < sizeof probes / sizeof *probes; i++) {
		parse(probes[i][1], strlen(probes[i][1]), msg, sizeof msg, NULL);
		printf("  %-20s %s\n", probes[i][0], msg);
	}
	free(text);
	if (argc == 3 && getenv("ROUND_TRIP")) {
		text = slurp(getenv("ROUND_TRIP"), &n);
		if (text)
			round_trip(text, n);
		free(text);
	}
	return 0;
}
