# rjg_warnings: the one warning list for our own targets (link it PRIVATE).
# Third-party headers come in as SYSTEM includes, so their warnings never break -Werror.
add_library(rjg_warnings INTERFACE)
target_compile_options(rjg_warnings INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wsign-conversion -Wnon-virtual-dtor
  -Wmissing-declarations -Wcast-qual -Wundef -Wnull-dereference -Wimplicit-fallthrough)
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  # __int128 is a GNU extension that -Wpedantic flags; Quantity relies on it deliberately.
  target_compile_options(rjg_warnings INTERFACE -Wno-pedantic)
elseif(CMAKE_CXX_COMPILER_ID MATCHES "Clang")
  target_compile_options(rjg_warnings INTERFACE -Wno-gnu-zero-variadic-macro-arguments)
endif()
if(RJG_WARNINGS_AS_ERRORS)
  target_compile_options(rjg_warnings INTERFACE -Werror)
endif()
