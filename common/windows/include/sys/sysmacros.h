/* Device numbers' parts, for the shared code that compares a device with
 * Linux's (/dev/null is 1:3): Windows has no such numbers, and its st_rdev
 * names the drive, which is never a character device of Linux's. */
#pragma once

#define major(dev) ((unsigned)(dev) >> 8)
#define minor(dev) ((unsigned)(dev)&0xffu)
