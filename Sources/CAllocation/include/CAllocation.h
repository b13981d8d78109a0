#ifndef C_ALLOCATION_H
#define C_ALLOCATION_H

#include <stddef.h>

/// The usable size of the heap block `pointer` starts (`malloc_usable_size` on Linux,
/// `malloc_size` on Apple platforms); 0 when the allocator does not know the pointer (Apple) or
/// the platform has no such call. (Swift's Glibc module leaves `malloc_usable_size` out.)
size_t archive_allocation_size(const void *pointer);

#endif
