/* SPDX-License-Identifier: MIT */
/* nosym: a shared object without ws_plugin_entry; the loader must refuse it. */
int nosym_not_a_plugin(void);

int nosym_not_a_plugin(void)
{
	return 42;
}
