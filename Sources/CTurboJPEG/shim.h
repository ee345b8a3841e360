#ifndef LAZYIMG_CTURBOJPEG_SHIM_H
#define LAZYIMG_CTURBOJPEG_SHIM_H
#include <turbojpeg.h>
#endif
