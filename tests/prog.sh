# Sourced by the tests that run the program (needs $build, the build tree):
# $prog is the program itself, not libtool's wrapper script in front of it,
# which starts a shell and four more processes each time (about 0.2 s of CPU
# a start on the 2-core machine); the library beside it is found through
# LD_LIBRARY_PATH, as the wrapper would have set it.
prog="$build/.libs/warpsim"
if [ -x "$prog" ]; then
	export LD_LIBRARY_PATH="$build/kernel/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
else
	prog="$build/warpsim"
fi
