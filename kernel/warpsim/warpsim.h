/* SPDX-License-Identifier: MIT */
/* Everything a warpsim plugin or embedding program needs. */
#ifndef WARPSIM_WARPSIM_H
#define WARPSIM_WARPSIM_H

#include <warpsim/core.h>
#include <warpsim/param.h>
#include <warpsim/fabric.h>
#include <warpsim/packet.h>
#include <warpsim/plugin.h>
#include <warpsim/sim.h>

#define WS_VERSION "0.1.0"

#endif
