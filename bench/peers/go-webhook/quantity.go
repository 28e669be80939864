package main

import (
	"fmt"
	"math/big"
	"strings"
)

// parseQuantity parses a Kubernetes resource.Quantity exactly ("500m", "64Gi", "1e3", "0.5")
// into a rational number of base units. It accepts the same grammar as apimachinery:
// an optional sign, digits with an optional fraction, then one of the binary suffixes
// (Ki..Ei), the decimal suffixes (n, u, m, "", k, M, G, T, P, E) or an e/E exponent.
func parseQuantity(s string) (*big.Rat, error) {
	if s == "" {
		return nil, fmt.Errorf("empty quantity")
	}
	i := 0
	neg := false
	if s[0] == '+' || s[0] == '-' {
		neg = s[0] == '-'
		i++
	}
	start := i
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	intEnd := i
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	}
	num := s[start:i]
	if num == "" || num == "." || (intEnd == start && i == intEnd+1) {
		return nil, fmt.Errorf("%q is not a quantity", s)
	}
	v, ok := new(big.Rat).SetString(num)
	if !ok {
		return nil, fmt.Errorf("%q is not a quantity", s)
	}
	suffix := s[i:]
	mult := new(big.Rat).SetInt64(1)
	switch suffix {
	case "":
	case "n":
		mult.SetFrac64(1, 1_000_000_000)
	case "u":
		mult.SetFrac64(1, 1_000_000)
	case "m":
		mult.SetFrac64(1, 1_000)
	case "k":
		mult.SetInt64(1_000)
	case "M":
		mult.SetInt64(1_000_000)
	case "G":
		mult.SetInt64(1_000_000_000)
	case "T":
		mult.SetInt64(1_000_000_000_000)
	case "P":
		mult.SetInt64(1_000_000_000_000_000)
	case "E":
		mult.SetInt64(1_000_000_000_000_000_000)
	case "Ki", "Mi", "Gi", "Ti", "Pi", "Ei":
		shift := uint(10 * (1 + strings.Index("KMGTPE", suffix[:1])))
		mult.SetInt(new(big.Int).Lsh(big.NewInt(1), shift))
	default:
		if suffix[0] != 'e' && suffix[0] != 'E' {
			return nil, fmt.Errorf("%q has an unknown suffix", s)
		}
		exp := 0
		j := 1
		expNeg := false
		if j < len(suffix) && (suffix[j] == '+' || suffix[j] == '-') {
			expNeg = suffix[j] == '-'
			j++
		}
		if j == len(suffix) {
			return nil, fmt.Errorf("%q has an empty exponent", s)
		}
		for ; j < len(suffix); j++ {
			c := suffix[j]
			if c < '0' || c > '9' || exp > 1000 {
				return nil, fmt.Errorf("%q has a bad exponent", s)
			}
			exp = exp*10 + int(c-'0')
		}
		p := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(exp)), nil)
		if expNeg {
			mult.SetFrac(big.NewInt(1), p)
		} else {
			mult.SetInt(p)
		}
	}
	v.Mul(v, mult)
	if neg {
		v.Neg(v)
	}
	return v, nil
}
