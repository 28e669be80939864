// The compiled parts of Asio (with SSL) and Beast, built once for the whole executable.
// Every translation unit that uses Asio or Beast links rjg::asio, which sets
// BOOST_ASIO_SEPARATE_COMPILATION and BOOST_BEAST_SEPARATE_COMPILATION, so it only declares these.
// Mixing this with header-only use in one executable is an ODR violation (it crashed `reap`).
#include <boost/asio/impl/src.hpp>
#include <boost/asio/ssl/impl/src.hpp>
#include <boost/beast/src.hpp>
