// stub: replaced by the implementation
#include "policy/quantity.hpp"
namespace rjg::policy {
std::optional<Quantity> Quantity::parse(std::string_view) { return std::nullopt; }
Quantity Quantity::operator+(const Quantity& o) const { return from_nanos(nanos_ + o.nanos_); }
Quantity Quantity::operator*(long long f) const { return from_nanos(nanos_ * f); }
std::string Quantity::to_string() const { return "0"; }
}  // namespace rjg::policy
