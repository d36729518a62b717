#ifndef LULL_CSYSTEMD_SHIM_H
#define LULL_CSYSTEMD_SHIM_H
#include <systemd/sd-daemon.h>
#include <systemd/sd-journal.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-login.h>
#endif
