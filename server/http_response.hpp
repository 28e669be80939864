// The one translation of a router Response into the Beast message both sessions write.
#pragma once

#include <boost/beast/http.hpp>
#include <utility>

#include "server/router.hpp"

namespace rjg::server {

// Replaces `out` with `response` as an HTTP/1.1 message: status, Content-Type, the response's
// headers, its body (moved out of `response`), keep-alive and Content-Length.
inline void to_http(Response&& response, bool keep_alive,
                    boost::beast::http::response<boost::beast::http::string_body>& out) {
  out = {};
  out.version(11);
  out.result(response.status);
  out.set(boost::beast::http::field::content_type, response.content_type);
  for (const auto& [name, value] : response.headers) {
    out.set(name, value);
  }
  out.body() = std::move(response.body);
  out.keep_alive(keep_alive);
  out.prepare_payload();
}

}  // namespace rjg::server
