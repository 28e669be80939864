// The compiled parts of Asio (with SSL) and Beast, built once for the whole server library.
// Every other translation unit sees BOOST_ASIO_SEPARATE_COMPILATION and
// BOOST_BEAST_SEPARATE_COMPILATION (set PUBLIC on rjg_server) and only declares these.
#include <boost/asio/impl/src.hpp>
#include <boost/asio/ssl/impl/src.hpp>
#include <boost/beast/src.hpp>
