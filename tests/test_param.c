/* SPDX-License-Identifier: MIT */
/*
 * Parameter values (kernel/param.c): every parameter type through
 * ws_param_parse, the units of rates, times and sizes with their exact
 * decimal arithmetic and rounding, the error sentences a user reads (missing
 * and unknown units, negative quantities, overflow, bounds), the canonical
 * text of ws_param_format and its round trip, the nearest-key suggestion,
 * and ws_param_defaults.  Tables are built here with the same WS_PARAM_*
 * macros plugins use, so no simulation is needed.
 */
#include "th.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* One field of each C type a parameter can fill. */
struct tconf {
	int64_t i;
	uint64_t u;
	double f;
	uint64_t rate;
	ws_time t;
	uint64_t size;
	bool b;
	const char *s;
	int e;
};

static const char *const colours[] = { "red", "green", "blue-ish", NULL };

/* Unbounded parameters, one per type. */
static const struct ws_param p_int =
	WS_PARAM_INT("i", struct tconf, i, "0", NULL, NULL, "int");
static const struct ws_param p_uint =
	WS_PARAM_UINT("u", struct tconf, u, "0", NULL, NULL, "uint");
static const struct ws_param p_float =
	WS_PARAM_FLOAT("f", struct tconf, f, "0", NULL, NULL, "float");
static const struct ws_param p_rate =
	WS_PARAM_RATE("rate", struct tconf, rate, "1Gbps", NULL, NULL, "rate");
static const struct ws_param p_time =
	WS_PARAM_TIME("t", struct tconf, t, "1us", NULL, NULL, "time");
static const struct ws_param p_size =
	WS_PARAM_SIZE("size", struct tconf, size, "1KB", NULL, NULL, "size");
static const struct ws_param p_bool =
	WS_PARAM_BOOL("b", struct tconf, b, "false", "bool");
static const struct ws_param p_string =
	WS_PARAM_STRING("s", struct tconf, s, "", "string");
static const struct ws_param p_enum =
	WS_PARAM_ENUM("e", struct tconf, e, "red", colours, "enum");

/* ---- helpers -------------------------------------------------------------- */

static void assert_has(const char *hay, const char *needle)
{
	if (!strstr(hay, needle))
		fail_msg("expected \"%s\" in \"%s\"", needle, hay);
}

static int64_t ok_int(const struct ws_param *p, const char *text)
{
	char why[256] = "";
	int64_t v = 0x5a5a;
	int rc = ws_param_parse(p, text, &v, why, sizeof why);
	if (rc != WS_OK)
		fail_msg("'%s' rejected: %s", text, why);
	return v;
}

static uint64_t ok_u64(const struct ws_param *p, const char *text)
{
	char why[256] = "";
	uint64_t v = 0x5a5a;
	int rc = ws_param_parse(p, text, &v, why, sizeof why);
	if (rc != WS_OK)
		fail_msg("'%s' rejected: %s", text, why);
	return v;
}

static double ok_double(const struct ws_param *p, const char *text)
{
	char why[256] = "";
	double v = -12345.0;
	int rc = ws_param_parse(p, text, &v, why, sizeof why);
	if (rc != WS_OK)
		fail_msg("'%s' rejected: %s", text, why);
	return v;
}

static bool ok_bool(const char *text)
{
	char why[256] = "";
	bool v = false;
	int rc = ws_param_parse(&p_bool, text, &v, why, sizeof why);
	if (rc != WS_OK)
		fail_msg("'%s' rejected: %s", text, why);
	return v;
}

/*
 * Expect `text` to be rejected with a sentence containing `sub`, and the
 * destination to be left alone.
 */
static void bad(const struct ws_param *p, const char *text, const char *sub)
{
	char why[512];
	memset(why, 0, sizeof why);
	union {
		int64_t i;
		uint64_t u;
		double f;
		bool b;
		int e;
		const char *s;
		unsigned char bytes[8];
	} v;
	memset(&v, 0xa5, sizeof v);
	int rc = ws_param_parse(p, text, &v, why, sizeof why);
	if (rc != WS_EINVAL)
		fail_msg("'%s' for %s: expected WS_EINVAL, got %d", text,
			 ws_ptype_name(p->type), rc);
	if (!why[0])
		fail_msg("'%s' for %s: rejected without a reason", text,
			 ws_ptype_name(p->type));
	assert_has(why, sub);
	for (size_t k = 0; k < sizeof v.bytes; k++)
		if (v.bytes[k] != 0xa5)
			fail_msg("'%s' for %s: the destination changed on error",
				 text, ws_ptype_name(p->type));
}

/* ---- types ------------------------------------------------------------------ */

static void test_type_names(void **state)
{
	(void)state;
	assert_string_equal(ws_ptype_name(WS_PT_INT), "int");
	assert_string_equal(ws_ptype_name(WS_PT_UINT), "uint");
	assert_string_equal(ws_ptype_name(WS_PT_FLOAT), "float");
	assert_string_equal(ws_ptype_name(WS_PT_RATE), "rate");
	assert_string_equal(ws_ptype_name(WS_PT_TIME), "time");
	assert_string_equal(ws_ptype_name(WS_PT_SIZE), "size");
	assert_string_equal(ws_ptype_name(WS_PT_BOOL), "bool");
	assert_string_equal(ws_ptype_name(WS_PT_STRING), "string");
	assert_string_equal(ws_ptype_name(WS_PT_ENUM), "enum");
	assert_string_equal(ws_ptype_name(0), "?");
	assert_string_equal(ws_ptype_name(99), "?");
}

static void test_int(void **state)
{
	(void)state;
	assert_int_equal(ok_int(&p_int, "0"), 0);
	assert_int_equal(ok_int(&p_int, "42"), 42);
	assert_int_equal(ok_int(&p_int, "-17"), -17);
	assert_int_equal(ok_int(&p_int, "+5"), 5);
	assert_int_equal(ok_int(&p_int, "  7\t "), 7);
	assert_int_equal(ok_int(&p_int, "007"), 7);
	assert_true(ok_int(&p_int, "9223372036854775807") == INT64_MAX);
	assert_true(ok_int(&p_int, "-9223372036854775808") == INT64_MIN);

	bad(&p_int, "9223372036854775808", "integer out of range");
	bad(&p_int, "-9223372036854775809", "integer out of range");
	bad(&p_int, "99999999999999999999999", "integer out of range");
	bad(&p_int, "12abc", "expected an integer, found '12abc'");
	bad(&p_int, "1.5", "expected an integer, found '1.5'");
	bad(&p_int, "1e3", "expected an integer, found '1e3'");
	bad(&p_int, "4 4", "expected an integer, found '4 4'");
	bad(&p_int, "abc", "expected an integer");
	bad(&p_int, "", "expected an integer");
	bad(&p_int, "   ", "expected an integer");
	bad(&p_int, "-", "expected an integer");
	bad(&p_int, "- 5", "expected an integer");
	bad(&p_int, "+-5", "expected an integer");
	bad(&p_int, "0x10", "expected an integer, found '0x10'");
}

static void test_uint(void **state)
{
	(void)state;
	assert_int_equal(ok_u64(&p_uint, "0"), 0);
	assert_int_equal(ok_u64(&p_uint, "123456789"), 123456789);
	assert_int_equal(ok_u64(&p_uint, " 64 "), 64);
	assert_true(ok_u64(&p_uint, "18446744073709551615") == UINT64_MAX);

	bad(&p_uint, "-1", "expected a non-negative integer");
	bad(&p_uint, "-0", "expected a non-negative integer");
	bad(&p_uint, "18446744073709551616", "integer out of range");
	bad(&p_uint, "1000000000000000000000", "integer out of range");
	bad(&p_uint, "12abc", "expected an integer, found '12abc'");
	bad(&p_uint, "3.0", "expected an integer, found '3.0'");
	bad(&p_uint, "x", "expected a non-negative integer");
	bad(&p_uint, "", "expected an integer");
}

static void test_float(void **state)
{
	(void)state;
	assert_true(ok_double(&p_float, "0.25") == 0.25);
	assert_true(ok_double(&p_float, "-1.5") == -1.5);
	assert_true(ok_double(&p_float, "1e3") == 1000.0);
	assert_true(ok_double(&p_float, "  2 ") == 2.0);
	assert_true(ok_double(&p_float, "0.00390625") == 0.00390625);
	assert_true(ok_double(&p_float, ".5") == 0.5);

	bad(&p_float, "nan", "expected a finite number, found 'nan'");
	bad(&p_float, "NaN", "expected a finite number");
	bad(&p_float, "inf", "expected a finite number, found 'inf'");
	bad(&p_float, "-inf", "expected a finite number");
	bad(&p_float, "infinity", "expected a finite number");
	bad(&p_float, "1e999", "expected a finite number, found '1e999'");
	bad(&p_float, "-1e999", "expected a finite number");
	bad(&p_float, "1.5x", "expected a finite number, found '1.5x'");
	bad(&p_float, "0.2 0.3", "expected a finite number");
	bad(&p_float, "abc", "expected a finite number");
	bad(&p_float, "", "expected a number");
}

static void test_bool(void **state)
{
	(void)state;
	static const char *const yes[] = { "true", "yes", "on", "1", "TRUE",
					   "True", "YES", "On", "oN", " true ",
					   NULL };
	static const char *const no[] = { "false", "no", "off", "0", "FALSE",
					  "False", "NO", "Off", "oFF", "\tno",
					  NULL };
	for (size_t i = 0; yes[i]; i++)
		if (!ok_bool(yes[i]))
			fail_msg("'%s' read as false", yes[i]);
	for (size_t i = 0; no[i]; i++) {
		char why[256] = "";
		bool v = true;
		assert_int_equal(ws_param_parse(&p_bool, no[i], &v, why, sizeof why),
				 WS_OK);
		if (v)
			fail_msg("'%s' read as true", no[i]);
	}
	static const char *const junk[] = { "2", "-1", "y", "n", "t", "f", "",
					    "truee", "yess", "of", "enabled",
					    "true false", "10", NULL };
	for (size_t i = 0; junk[i]; i++)
		bad(&p_bool, junk[i],
		    "expected true or false (also yes/no, on/off, 1/0)");
}

static void test_string(void **state)
{
	(void)state;
	char why[64] = "";
	const char *text = "hello world";
	const char *v = NULL;
	assert_int_equal(ws_param_parse(&p_string, text, &v, why, sizeof why), WS_OK);
	/* strings are not copied */
	assert_ptr_equal(v, text);
	const char *empty = "";
	assert_int_equal(ws_param_parse(&p_string, empty, &v, why, sizeof why), WS_OK);
	assert_ptr_equal(v, empty);
}

static void test_enum(void **state)
{
	(void)state;
	char why[256] = "";
	int v = -1;
	assert_int_equal(ws_param_parse(&p_enum, "red", &v, why, sizeof why), WS_OK);
	assert_int_equal(v, 0);
	assert_int_equal(ws_param_parse(&p_enum, "green", &v, why, sizeof why), WS_OK);
	assert_int_equal(v, 1);
	assert_int_equal(ws_param_parse(&p_enum, " blue-ish ", &v, why, sizeof why),
			 WS_OK);
	assert_int_equal(v, 2);

	/* exact match only: no case folding, no prefixes */
	bad(&p_enum, "Red", "expected one of: red, green, blue-ish");
	bad(&p_enum, "RED", "expected one of: red, green, blue-ish");
	bad(&p_enum, "gree", "expected one of: red, green, blue-ish");
	bad(&p_enum, "greens", "expected one of: red, green, blue-ish");
	bad(&p_enum, "blue", "expected one of: red, green, blue-ish");
	bad(&p_enum, "", "expected one of: red, green, blue-ish");
	bad(&p_enum, "0", "expected one of: red, green, blue-ish");

	/* a small buffer truncates the list without overrunning it */
	char small[12];
	memset(small, 'x', sizeof small);
	v = 7;
	assert_int_equal(ws_param_parse(&p_enum, "pink", &v, small, sizeof small),
			 WS_EINVAL);
	assert_int_equal(v, 7);
	assert_int_equal(strlen(small), sizeof small - 1);
	assert_string_equal(small, "expected on");
}

/* ---- units -------------------------------------------------------------------- */

static void test_rate_units(void **state)
{
	(void)state;
	assert_int_equal(ok_u64(&p_rate, "1bps"), 1);
	assert_int_equal(ok_u64(&p_rate, "0bps"), 0);
	assert_int_equal(ok_u64(&p_rate, "10Kbps"), 10000);
	assert_int_equal(ok_u64(&p_rate, "20Mbps"), 20000000);
	assert_int_equal(ok_u64(&p_rate, "100Gbps"), 100000000000ull);
	assert_int_equal(ok_u64(&p_rate, "2Tbps"), 2000000000000ull);
	/* the x/s spellings */
	assert_int_equal(ok_u64(&p_rate, "9b/s"), 9);
	assert_int_equal(ok_u64(&p_rate, "3Kb/s"), 3000);
	assert_int_equal(ok_u64(&p_rate, "5Mb/s"), 5000000);
	assert_int_equal(ok_u64(&p_rate, "40Gb/s"), 40000000000ull);
	assert_int_equal(ok_u64(&p_rate, "1Tb/s"), 1000000000000ull);
	/* case-insensitive */
	assert_int_equal(ok_u64(&p_rate, "25gbps"), 25000000000ull);
	/* the prefix's case is free, the b is not: B would be bytes */
	bad(&p_rate, "25GBPS", "rates are in bits per second");
	bad(&p_rate, "100GB/s", "rates are in bits per second");
	assert_int_equal(ok_u64(&p_rate, "25GbPS"), 25000000000ull);
	assert_int_equal(ok_u64(&p_rate, "7kbps"), 7000);
	assert_int_equal(ok_u64(&p_rate, "7KbPS"), 7000);
	assert_int_equal(ok_u64(&p_rate, "40gb/S"), 40000000000ull);
	/* fractions, exponents, spaces */
	assert_int_equal(ok_u64(&p_rate, "2.5Mbps"), 2500000);
	assert_int_equal(ok_u64(&p_rate, "1.5e2Mbps"), 150000000);
	assert_int_equal(ok_u64(&p_rate, "0.001Gbps"), 1000000);
	assert_int_equal(ok_u64(&p_rate, "100 Gbps"), 100000000000ull);
	assert_int_equal(ok_u64(&p_rate, "100   Gbps"), 100000000000ull);
	assert_int_equal(ok_u64(&p_rate, "  100Gbps  "), 100000000000ull);
	assert_int_equal(ok_u64(&p_rate, "\t100Gbps\t"), 100000000000ull);
	/* the largest value */
	assert_true(ok_u64(&p_rate, "18446744073709551615bps") == UINT64_MAX);
}

static void test_time_units(void **state)
{
	(void)state;
	assert_int_equal(ok_u64(&p_time, "1ps"), 1);
	assert_int_equal(ok_u64(&p_time, "1ns"), 1000);
	assert_int_equal(ok_u64(&p_time, "1us"), 1000000);
	assert_int_equal(ok_u64(&p_time, "1ms"), 1000000000ull);
	assert_int_equal(ok_u64(&p_time, "1s"), 1000000000000ull);
	assert_int_equal(ok_u64(&p_time, "0s"), 0);
	/* exact decimal arithmetic */
	assert_int_equal(ok_u64(&p_time, "0.001ms"), 1000000);
	assert_int_equal(ok_u64(&p_time, "1.5us"), 1500000);
	assert_int_equal(ok_u64(&p_time, "1e3ns"), 1000000);
	assert_int_equal(ok_u64(&p_time, "1E3ns"), 1000000);
	assert_int_equal(ok_u64(&p_time, "1.5e3us"), 1500000000ull);
	assert_int_equal(ok_u64(&p_time, "1e+3ns"), 1000000);
	assert_int_equal(ok_u64(&p_time, "1000e-3us"), 1000000);
	assert_int_equal(ok_u64(&p_time, "0.000001s"), 1000000);
	assert_int_equal(ok_u64(&p_time, "2.000001s"), 2000001000000ull);
	assert_int_equal(ok_u64(&p_time, ".5us"), 500000);
	assert_int_equal(ok_u64(&p_time, "0.1s"), 100000000000ull);
	/* any spelling of the same instant gives the same integer */
	assert_int_equal(ok_u64(&p_time, "0.3us"), ok_u64(&p_time, "300ns"));
	assert_int_equal(ok_u64(&p_time, "0.0003ms"), ok_u64(&p_time, "300000ps"));
	/* rounding to the nearest picosecond, half up */
	assert_int_equal(ok_u64(&p_time, "0.5ps"), 1);
	assert_int_equal(ok_u64(&p_time, "0.4ps"), 0);
	assert_int_equal(ok_u64(&p_time, "0.49999ps"), 0);
	assert_int_equal(ok_u64(&p_time, "0.149ps"), 0);
	assert_int_equal(ok_u64(&p_time, "1.5ps"), 2);
	assert_int_equal(ok_u64(&p_time, "2.5ps"), 3);
	assert_int_equal(ok_u64(&p_time, "2.4999ps"), 2);
	assert_int_equal(ok_u64(&p_time, "0.0015ns"), 2);
	assert_int_equal(ok_u64(&p_time, "1e-30s"), 0);
	assert_int_equal(ok_u64(&p_time, "0e999s"), 0);
	/* spaces */
	assert_int_equal(ok_u64(&p_time, "3 ms"), 3000000000ull);
	assert_int_equal(ok_u64(&p_time, " 3ms "), 3000000000ull);
	/* case-sensitive: "Ms" would be a megasecond elsewhere */
	bad(&p_time, "1US", "unknown time unit 'US'");
	bad(&p_time, "1Ms", "unknown time unit 'Ms'");
	bad(&p_time, "1S", "unknown time unit 'S'");
	bad(&p_time, "1NS", "unknown time unit 'NS'");
	bad(&p_time, "1sec", "unknown time unit 'sec'");
	bad(&p_time, "1µs", "unknown time unit");
}

static void test_size_units(void **state)
{
	(void)state;
	/* a bare number is bytes */
	assert_int_equal(ok_u64(&p_size, "1500"), 1500);
	assert_int_equal(ok_u64(&p_size, "0"), 0);
	assert_int_equal(ok_u64(&p_size, "1e3"), 1000);
	assert_int_equal(ok_u64(&p_size, "1500B"), 1500);
	assert_int_equal(ok_u64(&p_size, "1KB"), 1000);
	assert_int_equal(ok_u64(&p_size, "1kB"), 1000);
	assert_int_equal(ok_u64(&p_size, "1.5KB"), 1500);
	assert_int_equal(ok_u64(&p_size, "2MB"), 2000000);
	assert_int_equal(ok_u64(&p_size, "3GB"), 3000000000ull);
	assert_int_equal(ok_u64(&p_size, "4TB"), 4000000000000ull);
	assert_int_equal(ok_u64(&p_size, "4KiB"), 4096);
	assert_int_equal(ok_u64(&p_size, "32MiB"), 33554432);
	assert_int_equal(ok_u64(&p_size, "1GiB"), 1073741824ull);
	assert_int_equal(ok_u64(&p_size, "1TiB"), 1099511627776ull);
	assert_int_equal(ok_u64(&p_size, "0.5KiB"), 512);
	assert_int_equal(ok_u64(&p_size, "1.5 MiB"), 1572864);
	assert_int_equal(ok_u64(&p_size, " 64 B "), 64);
	/* rounded to the nearest byte, half up */
	assert_int_equal(ok_u64(&p_size, "0.5B"), 1);
	assert_int_equal(ok_u64(&p_size, "1.0005KB"), 1001);
	assert_int_equal(ok_u64(&p_size, "1.0004KB"), 1000);
	assert_true(ok_u64(&p_size, "18446744073709551615") == UINT64_MAX);
	assert_true(ok_u64(&p_size, "18446744073709551615B") == UINT64_MAX);
	/* units are case-sensitive */
	bad(&p_size, "1kb", "unknown size unit 'kb'");
	bad(&p_size, "1b", "unknown size unit 'b'");
	bad(&p_size, "1kib", "unknown size unit 'kib'");
	bad(&p_size, "1Kib", "unknown size unit 'Kib'");
	bad(&p_size, "1mb", "unknown size unit 'mb'");
	bad(&p_size, "1PB", "unknown size unit 'PB'");
	bad(&p_size, "1 bytes", "unknown size unit 'bytes'");
}

static void test_unit_errors(void **state)
{
	(void)state;
	/* missing unit: rates and times need one, sizes do not */
	bad(&p_rate, "100", "missing unit: expected a rate such as 100Gbps");
	bad(&p_rate, "100 ", "missing unit");
	bad(&p_time, "5", "missing unit: expected a time such as 1us");
	bad(&p_time, "0", "missing unit");
	bad(&p_time, "1.5e3", "missing unit");

	/* unknown units are named and the valid ones listed */
	bad(&p_rate, "100Gbs",
	    "unknown rate unit 'Gbs' (expected bps, Kbps, Mbps, Gbps, Tbps)");
	bad(&p_rate, "100 G bps", "unknown rate unit 'G bps'");
	bad(&p_rate, "1Pbps", "unknown rate unit 'Pbps'");
	bad(&p_time, "1min", "unknown time unit 'min' (expected ps, ns, us, ms, s)");
	bad(&p_time, "1e", "unknown time unit 'e'");
	bad(&p_size, "1XB",
	    "unknown size unit 'XB' (expected B, KB, kB, MB, GB, TB, KiB, MiB, GiB, TiB)");
	bad(&p_time, "1us5", "unknown time unit 'us5'");
	bad(&p_rate, "1.2.3Gbps", "unknown rate unit '.3Gbps'");

	/* no number at all */
	bad(&p_rate, "Gbps", "expected a rate: a number and a unit (bps, Kbps");
	bad(&p_rate, "", "expected a rate");
	bad(&p_time, "us", "expected a time: a number and a unit (ps, ns, us, ms, s)");
	bad(&p_time, ".us", "expected a time");
	bad(&p_size, "KB", "expected a size: a number and a unit");
	bad(&p_size, "   ", "expected a size");

	/* negative quantities */
	bad(&p_rate, "-1Gbps", "a rate cannot be negative");
	bad(&p_rate, " -1Gbps", "a rate cannot be negative");
	bad(&p_time, "-1us", "a time cannot be negative");
	bad(&p_time, "-0s", "a time cannot be negative");
	bad(&p_size, "-5", "a size cannot be negative");
	bad(&p_size, "-1KiB", "a size cannot be negative");

	/* overflow of 64 bits */
	bad(&p_rate, "18446744073709551616bps", "rate too large");
	bad(&p_rate, "20000000Tbps", "rate too large");
	bad(&p_rate, "99999999999999999999999999999999999999999999999bps",
	    "rate too large");
	bad(&p_time, "1e30s", "time too large");
	bad(&p_time, "18446745s", "time too large");
	bad(&p_time, "1e99999ps", "time too large");
	bad(&p_size, "18446744073709551616", "size too large");
	bad(&p_size, "16777216TiB", "size too large");
	bad(&p_size, "1e20B", "size too large");
	/* just under the limit still fits */
	assert_int_equal(ok_u64(&p_time, "18446744s"), 18446744000000000000ull);
	assert_int_equal(ok_u64(&p_size, "16777215TiB"), 16777215ull * 1099511627776ull);
}

/* ---- bounds ------------------------------------------------------------------- */

struct bconf {
	uint64_t k;
	int64_t off;
	double p;
	uint64_t rate;
	ws_time t;
	uint64_t buf;
};

static const struct ws_param bparams[] = {
	WS_PARAM_UINT("k", struct bconf, k, "4", "2", "254", "radix"),
	WS_PARAM_INT("off", struct bconf, off, "0", "-10", "10", "offset"),
	WS_PARAM_FLOAT("p", struct bconf, p, "0.5", "0", "1", "probability"),
	WS_PARAM_RATE("rate", struct bconf, rate, "1Gbps", "1Mbps", NULL, "rate"),
	WS_PARAM_TIME("t", struct bconf, t, "1us", NULL, "1s", "time"),
	WS_PARAM_SIZE("buf", struct bconf, buf, "1KiB", "1KiB", "4GiB", "buffer"),
	WS_PARAM_END
};

static void test_bounds(void **state)
{
	(void)state;
	const struct ws_param *k = &bparams[0], *off = &bparams[1], *p = &bparams[2];
	const struct ws_param *rate = &bparams[3], *t = &bparams[4], *buf = &bparams[5];

	/* both bounds, inclusive */
	assert_int_equal(ok_u64(k, "2"), 2);
	assert_int_equal(ok_u64(k, "254"), 254);
	bad(k, "1", "1 is out of range (expected 2 to 254)");
	bad(k, "0", "0 is out of range (expected 2 to 254)");
	bad(k, "255", "255 is out of range (expected 2 to 254)");
	bad(k, "  300 ", "300 is out of range (expected 2 to 254)");
	/* a value that does not parse is reported as such, not as a range */
	bad(k, "-3", "expected a non-negative integer");

	assert_int_equal(ok_int(off, "-10"), -10);
	assert_int_equal(ok_int(off, "10"), 10);
	assert_int_equal(ok_int(off, "-0"), 0);
	bad(off, "-11", "-11 is out of range (expected -10 to 10)");
	bad(off, "11", "11 is out of range (expected -10 to 10)");

	assert_true(ok_double(p, "0") == 0.0);
	assert_true(ok_double(p, "1") == 1.0);
	assert_true(ok_double(p, "1e-9") == 1e-9);
	bad(p, "1.5", "1.5 is out of range (expected 0 to 1)");
	bad(p, "-0.1", "-0.1 is out of range (expected 0 to 1)");
	bad(p, "1.0000001", "out of range (expected 0 to 1)");

	/* the bound compares values, not text: 1000Kbps is 1Mbps */
	assert_int_equal(ok_u64(rate, "1000Kbps"), 1000000);
	assert_int_equal(ok_u64(rate, "0.001Gbps"), 1000000);
	assert_int_equal(ok_u64(rate, "400Gbps"), 400000000000ull);
	bad(rate, "999Kbps", "999Kbps is below the minimum 1Mbps");
	bad(rate, "0bps", "0bps is below the minimum 1Mbps");

	assert_int_equal(ok_u64(t, "1000ms"), 1000000000000ull);
	assert_int_equal(ok_u64(t, "0s"), 0);
	bad(t, "2s", "2s is above the maximum 1s");
	bad(t, "1000000001us", "1000000001us is above the maximum 1s");
	bad(t, "1.000000000001s", "is above the maximum 1s");

	assert_int_equal(ok_u64(buf, "1024"), 1024);
	assert_int_equal(ok_u64(buf, "4GiB"), 4294967296ull);
	bad(buf, "1KB", "1KB is out of range (expected 1KiB to 4GiB)");
	bad(buf, "1023B", "out of range (expected 1KiB to 4GiB)");
	bad(buf, "4294967297", "out of range (expected 1KiB to 4GiB)");
}

/* ---- formatting ------------------------------------------------------------------ */

static const char *fmt(const struct ws_param *p, const void *v)
{
	static char buf[128];
	memset(buf, 'x', sizeof buf);
	size_t n = ws_param_format(p, v, buf, sizeof buf);
	assert_int_equal(n, strlen(buf));
	return buf;
}

static const char *fmt_u64(const struct ws_param *p, uint64_t v)
{
	return fmt(p, &v);
}

static void test_format_canonical(void **state)
{
	(void)state;
	assert_string_equal(fmt_u64(&p_rate, 100000000000ull), "100Gbps");
	assert_string_equal(fmt_u64(&p_rate, 25000000000ull), "25Gbps");
	assert_string_equal(fmt_u64(&p_rate, 20000000), "20Mbps");
	assert_string_equal(fmt_u64(&p_rate, 1000), "1Kbps");
	assert_string_equal(fmt_u64(&p_rate, 1500), "1500bps");
	assert_string_equal(fmt_u64(&p_rate, 2500000), "2500Kbps");
	assert_string_equal(fmt_u64(&p_rate, 1000000000000ull), "1Tbps");
	assert_string_equal(fmt_u64(&p_rate, 0), "0bps");

	assert_string_equal(fmt_u64(&p_time, 1000000), "1us");
	assert_string_equal(fmt_u64(&p_time, 1500000), "1500ns");
	assert_string_equal(fmt_u64(&p_time, 1), "1ps");
	assert_string_equal(fmt_u64(&p_time, 500000000), "500us");
	assert_string_equal(fmt_u64(&p_time, 5000000000ull), "5ms");
	assert_string_equal(fmt_u64(&p_time, 1000000000000ull), "1s");
	assert_string_equal(fmt_u64(&p_time, 0), "0ps");

	assert_string_equal(fmt_u64(&p_size, 33554432), "32MiB");
	assert_string_equal(fmt_u64(&p_size, 1000), "1KB");
	assert_string_equal(fmt_u64(&p_size, 4096), "4KiB");
	assert_string_equal(fmt_u64(&p_size, 1500), "1500B");
	assert_string_equal(fmt_u64(&p_size, 1052), "1052B");
	assert_string_equal(fmt_u64(&p_size, 400000), "400KB");
	assert_string_equal(fmt_u64(&p_size, 1000000), "1MB");
	assert_string_equal(fmt_u64(&p_size, 1073741824ull), "1GiB");
	assert_string_equal(fmt_u64(&p_size, 0), "0B");

	int64_t i = -42;
	assert_string_equal(fmt(&p_int, &i), "-42");
	uint64_t u = 18446744073709551615ull;
	assert_string_equal(fmt(&p_uint, &u), "18446744073709551615");
	double f = 0.2;
	assert_string_equal(fmt(&p_float, &f), "0.2");
	f = 1.0;
	assert_string_equal(fmt(&p_float, &f), "1");
	f = 0.00390625;
	assert_string_equal(fmt(&p_float, &f), "0.00390625");
	bool b = true;
	assert_string_equal(fmt(&p_bool, &b), "true");
	b = false;
	assert_string_equal(fmt(&p_bool, &b), "false");
	int e = 2;
	assert_string_equal(fmt(&p_enum, &e), "blue-ish");
	const char *s = "a b c";
	assert_string_equal(fmt(&p_string, &s), "a b c");
	s = NULL;
	assert_string_equal(fmt(&p_string, &s), "");

	/* a short buffer is truncated and terminated; the full length is returned */
	char small[4];
	uint64_t r = 100000000000ull;
	assert_int_equal(ws_param_format(&p_rate, &r, small, sizeof small), 7);
	assert_string_equal(small, "100");
}

static void roundtrip_u64(const struct ws_param *p, uint64_t v)
{
	char text[128], why[256] = "";
	ws_param_format(p, &v, text, sizeof text);
	uint64_t back = ~v;
	if (ws_param_parse(p, text, &back, why, sizeof why))
		fail_msg("%s %" PRIu64 " formatted as '%s', which does not parse: %s",
			 ws_ptype_name(p->type), v, text, why);
	if (back != v)
		fail_msg("%s %" PRIu64 " formatted as '%s', parsed back as %" PRIu64,
			 ws_ptype_name(p->type), v, text, back);
}

static void test_format_roundtrip(void **state)
{
	(void)state;
	static const uint64_t rates[] = {
		0, 1, 999, 1000, 1001, 1500, 2500000, 20000000, 25000000000ull,
		100000000000ull, 400000000000ull, 1000000000000ull,
		123456789012345ull, 1000000000000000000ull, UINT64_MAX,
	};
	static const uint64_t times[] = {
		0, 1, 999, 1000, 1001, 1500000, 1000000, 999999999,
		1000000000ull, 1000000000000ull, 3600000000000000ull,
		2000001000000ull, UINT64_MAX - 1, UINT64_MAX,
	};
	static const uint64_t sizes[] = {
		0, 1, 52, 1000, 1023, 1024, 1025, 1052, 1500, 4096, 9216, 1024000,
		33554432, 400000, 1600000, 1000000000ull, 1000000000000ull,
		1099511627776ull, 4294967296ull, UINT64_MAX - 1023, UINT64_MAX,
	};
	for (size_t i = 0; i < sizeof rates / sizeof rates[0]; i++)
		roundtrip_u64(&p_rate, rates[i]);
	for (size_t i = 0; i < sizeof times / sizeof times[0]; i++)
		roundtrip_u64(&p_time, times[i]);
	for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
		roundtrip_u64(&p_size, sizes[i]);
	for (uint64_t v = 0; v < 5000; v += 7) {
		roundtrip_u64(&p_rate, v * 1000);
		roundtrip_u64(&p_time, v * 1000000);
		roundtrip_u64(&p_size, v * 512);
		roundtrip_u64(&p_uint, v * 1000003);
	}

	static const int64_t ints[] = { 0, 1, -1, 42, -42, INT64_MAX, INT64_MIN };
	for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++) {
		char text[64], why[128] = "";
		ws_param_format(&p_int, &ints[i], text, sizeof text);
		int64_t back = 0;
		assert_int_equal(ws_param_parse(&p_int, text, &back, why, sizeof why),
				 WS_OK);
		assert_true(back == ints[i]);
	}
	/* doubles with at most 10 significant digits survive "%.10g" */
	static const double floats[] = { 0.0, 0.2, 1.0, -3.5, 0.00390625, 1e-9,
					 123456.789, 1e300, -2.5e-7 };
	for (size_t i = 0; i < sizeof floats / sizeof floats[0]; i++) {
		char text[64], why[128] = "";
		ws_param_format(&p_float, &floats[i], text, sizeof text);
		double back = -1;
		assert_int_equal(ws_param_parse(&p_float, text, &back, why, sizeof why),
				 WS_OK);
		if (back != floats[i])
			fail_msg("float %.17g -> '%s' -> %.17g", floats[i], text, back);
	}
	for (int b = 0; b < 2; b++) {
		bool v = b, back = !b;
		char text[16], why[128] = "";
		ws_param_format(&p_bool, &v, text, sizeof text);
		assert_int_equal(ws_param_parse(&p_bool, text, &back, why, sizeof why),
				 WS_OK);
		assert_int_equal(back, v);
	}
	for (int e = 0; colours[e]; e++) {
		int back = -1;
		char text[32], why[128] = "";
		ws_param_format(&p_enum, &e, text, sizeof text);
		assert_int_equal(ws_param_parse(&p_enum, text, &back, why, sizeof why),
				 WS_OK);
		assert_int_equal(back, e);
	}
}

/* ---- nearest key -------------------------------------------------------------------- */

struct dconf {
	double g;
	ws_time alpha_interval;
	uint64_t rate_ai;
	uint64_t rate_hai;
	uint64_t min_rate;
	uint64_t fast_recovery;
	bool clamp_target;
};

static const struct ws_param dparams[] = {
	WS_PARAM_FLOAT("g", struct dconf, g, "0.00390625", "0", "1", "gain"),
	WS_PARAM_TIME("alpha_interval", struct dconf, alpha_interval, "1us", "1ns",
		      "1s", "alpha update period"),
	WS_PARAM_RATE("rate_ai", struct dconf, rate_ai, "20Mbps", "0bps", "1Tbps",
		      "additive increase"),
	WS_PARAM_RATE("rate_hai", struct dconf, rate_hai, "200Mbps", "0bps", "1Tbps",
		      "hyper increase"),
	WS_PARAM_RATE("min_rate", struct dconf, min_rate, "1Gbps", "1bps", "1Tbps",
		      "floor"),
	WS_PARAM_UINT("fast_recovery", struct dconf, fast_recovery, "1", "0", "100",
		      "fast recovery steps"),
	WS_PARAM_BOOL("clamp_target", struct dconf, clamp_target, "false", "clamp"),
	WS_PARAM_END
};

static void test_nearest(void **state)
{
	(void)state;
	assert_string_equal(ws_param_nearest(dparams, "rate_aii"), "rate_ai");
	assert_string_equal(ws_param_nearest(dparams, "rate_a"), "rate_ai");
	assert_string_equal(ws_param_nearest(dparams, "rate_haii"), "rate_hai");
	assert_string_equal(ws_param_nearest(dparams, "RATE_AI"), "rate_ai");
	assert_string_equal(ws_param_nearest(dparams, "minrate"), "min_rate");
	assert_string_equal(ws_param_nearest(dparams, "alpha"), "alpha_interval");
	assert_string_equal(ws_param_nearest(dparams, "fast_recovery_steps"),
			    "fast_recovery");
	assert_string_equal(ws_param_nearest(dparams, "clamp_targets"), "clamp_target");
	assert_null(ws_param_nearest(dparams, "zzzzzzzzzzzz"));
	assert_null(ws_param_nearest(dparams, "buffer_size"));
	assert_null(ws_param_nearest(dparams, "qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqq"
					      "qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqq"));
	/* no table, no suggestion */
	assert_null(ws_param_nearest(NULL, "rate_ai"));
	static const struct ws_param empty[] = { WS_PARAM_END };
	assert_null(ws_param_nearest(empty, "rate_ai"));
}

/* ---- defaults -------------------------------------------------------------------------- */

static void test_defaults(void **state)
{
	(void)state;
	struct dconf c;
	memset(&c, 0xff, sizeof c);
	struct ws_err err;
	ws_err_clear(&err);
	assert_int_equal(ws_param_defaults(dparams, &c, &err), WS_OK);
	assert_true(c.g == 0.00390625);
	assert_int_equal(c.alpha_interval, 1000000);
	assert_int_equal(c.rate_ai, 20000000);
	assert_int_equal(c.rate_hai, 200000000);
	assert_int_equal(c.min_rate, 1000000000);
	assert_int_equal(c.fast_recovery, 1);
	assert_false(c.clamp_target);
	assert_int_equal(err.code, 0);

	struct tconf t;
	memset(&t, 0, sizeof t);
	const struct ws_param all[] = { p_int, p_uint, p_float, p_rate, p_time,
					p_size, p_bool, p_string, p_enum,
					WS_PARAM_END };
	assert_int_equal(ws_param_defaults(all, &t, &err), WS_OK);
	assert_int_equal(t.rate, 1000000000);
	assert_int_equal(t.t, 1000000);
	assert_int_equal(t.size, 1000);
	assert_non_null(t.s);
	assert_string_equal(t.s, "");
	assert_int_equal(t.e, 0);

	/* a required key (no default) is left alone */
	const struct ws_param req[] = {
		WS_PARAM_STRING("file", struct tconf, s, NULL, "required"),
		WS_PARAM_UINT("u", struct tconf, u, "7", NULL, NULL, "u"),
		WS_PARAM_END
	};
	t.s = "untouched";
	assert_int_equal(ws_param_defaults(req, &t, &err), WS_OK);
	assert_string_equal(t.s, "untouched");
	assert_int_equal(t.u, 7);

	/* no table: nothing to do */
	assert_int_equal(ws_param_defaults(NULL, &t, &err), WS_OK);
}

static void test_defaults_invalid(void **state)
{
	(void)state;
	struct tconf t;
	struct ws_err err;

	const struct ws_param bad_unit[] = {
		WS_PARAM_UINT("u", struct tconf, u, "3", NULL, NULL, "u"),
		WS_PARAM_RATE("rate", struct tconf, rate, "100Gbs", NULL, NULL, "r"),
		WS_PARAM_END
	};
	memset(&t, 0, sizeof t);
	ws_err_clear(&err);
	assert_int_equal(ws_param_defaults(bad_unit, &t, &err), WS_EPLUGIN);
	assert_int_equal(err.code, WS_EPLUGIN);
	assert_has(err.msg, "default of 'rate' (100Gbs) is invalid");
	assert_has(err.msg, "unknown rate unit 'Gbs'");

	const struct ws_param out_of_range[] = {
		WS_PARAM_UINT("k", struct tconf, u, "300", "2", "254", "k"),
		WS_PARAM_END
	};
	ws_err_clear(&err);
	assert_int_equal(ws_param_defaults(out_of_range, &t, &err), WS_EPLUGIN);
	assert_has(err.msg, "default of 'k' (300) is invalid");
	assert_has(err.msg, "300 is out of range (expected 2 to 254)");

	const struct ws_param bad_enum[] = {
		WS_PARAM_ENUM("e", struct tconf, e, "purple", colours, "e"),
		WS_PARAM_END
	};
	ws_err_clear(&err);
	assert_int_equal(ws_param_defaults(bad_enum, &t, &err), WS_EPLUGIN);
	assert_has(err.msg, "default of 'e' (purple) is invalid");
	assert_has(err.msg, "expected one of: red, green, blue-ish");

	const struct ws_param no_unit[] = {
		WS_PARAM_TIME("t", struct tconf, t, "10", NULL, NULL, "t"),
		WS_PARAM_END
	};
	ws_err_clear(&err);
	assert_int_equal(ws_param_defaults(no_unit, &t, &err), WS_EPLUGIN);
	assert_has(err.msg, "default of 't' (10) is invalid: missing unit");

	/* a NULL error is allowed */
	assert_int_equal(ws_param_defaults(no_unit, &t, NULL), WS_EPLUGIN);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_type_names),
		cmocka_unit_test(test_int),
		cmocka_unit_test(test_uint),
		cmocka_unit_test(test_float),
		cmocka_unit_test(test_bool),
		cmocka_unit_test(test_string),
		cmocka_unit_test(test_enum),
		cmocka_unit_test(test_rate_units),
		cmocka_unit_test(test_time_units),
		cmocka_unit_test(test_size_units),
		cmocka_unit_test(test_unit_errors),
		cmocka_unit_test(test_bounds),
		cmocka_unit_test(test_format_canonical),
		cmocka_unit_test(test_format_roundtrip),
		cmocka_unit_test(test_nearest),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_defaults_invalid),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
