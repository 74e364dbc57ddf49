/* The version glovebox reports (--version, serverInfo, status, the REST
 * API's document): the package's version when a package built it, else the
 * git tag of the checkout, else meson's project version (meson.build). */
#ifndef GLOVEBOX_CORE_VERSION_H
#define GLOVEBOX_CORE_VERSION_H

extern const char glovebox_version[];
#define GLOVEBOX_VERSION glovebox_version

#endif
