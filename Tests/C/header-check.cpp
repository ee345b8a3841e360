// The public header must compile alone as C++11 with every warning an error.
#include "lazyimg.h"

int main()
{
    lazyimg_config cfg;
    lazyimg_config_init(&cfg);
    return cfg.struct_size == 0;
}
