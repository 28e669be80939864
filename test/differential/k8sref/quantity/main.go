// Command quantity compares rayjob-guard's policy::Quantity::parse (policy/quantity.cpp) with
// k8s.io/apimachinery's resource.ParseQuantity over generated strings from a fixed seed.
//
// What is compared, per case:
//   - refusal: both refuse, or both accept;
//   - value: ours holds an exact count of nano-units in a signed 128-bit integer; Go's value
//     (Quantity.AsDec(), an exact decimal) is turned into nano-units exactly with math/big and
//     must be equal, digit for digit;
//   - our text: Quantity::to_string() is not Kubernetes' canonical form (Quantity.String()), it
//     is the text our messages print; ParseQuantity must read it back to the very same value.
//
// Known differences (ours refuses what Go accepts), each counted and printed, none hidden:
//   - too-large: Go's int64 fast path keeps short inputs with huge exponents uncapped ("1e40",
//     "5e2147483647"); ours holds at most 2^127-1 nano-units (about 1.7e29 units) and refuses
//     them. No resource or quota is that large.
//
// Usage: quantity -ours PATH [-seed N] [-cases N] [-v]
// Exit 0 when every case agrees (known differences included), 1 on a mismatch, 2 on a usage or
// tool error. The summary line is "quantity: N passed, M failed".
package main

import (
	"flag"
	"fmt"
	"math/big"
	"math/rand/v2"
	"os"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"

	"rayjob-guard.test/differential/k8sref/internal/ours"
)

// int128Max is the largest count of nano-units ours can hold.
var int128Max = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 127), big.NewInt(1))

// goNanos returns Go's value of q in nano-units, and false when it is beyond ours' range.
func goNanos(q resource.Quantity) (*big.Int, bool) {
	d := q.AsDec()
	unscaled := new(big.Int).Set(d.UnscaledBig())
	if unscaled.Sign() == 0 {
		return unscaled, true
	}
	// value = unscaled * 10^-scale; nanos = unscaled * 10^(9 - scale).
	e := 9 - int64(d.Scale())
	if e > 60 {
		return nil, false // at least 10^60 nano-units, far beyond 2^127
	}
	if e >= 0 {
		unscaled.Mul(unscaled, new(big.Int).Exp(big.NewInt(10), big.NewInt(e), nil))
	} else {
		div := new(big.Int).Exp(big.NewInt(10), big.NewInt(-e), nil)
		rem := new(big.Int)
		unscaled.QuoRem(unscaled, div, rem)
		if rem.Sign() != 0 {
			panic(fmt.Sprintf("Go's value %s is not a whole number of nano-units", d))
		}
	}
	if new(big.Int).Abs(unscaled).Cmp(int128Max) > 0 {
		return nil, false
	}
	return unscaled, true
}

// generator builds quantity strings from one seeded source.
type generator struct{ r *rand.Rand }

func (g generator) pick(xs ...string) string { return xs[g.r.IntN(len(xs))] }

func (g generator) digits(max int) string {
	n := g.r.IntN(max + 1)
	var b strings.Builder
	for i := 0; i < n; i++ {
		b.WriteByte(byte('0' + g.r.IntN(10)))
	}
	return b.String()
}

var suffixes = []string{"", "n", "u", "m", "k", "M", "G", "T", "P", "E", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"}

// exponent returns an e/E exponent, mostly small, sometimes at the int32 edges. Huge exponents
// are kept positive (after Go's int32 wrap) and to mantissas of at most 18 digits: Go's
// arbitrary-precision path (more digits, a fraction, or a scale below nano) computes with
// 10^2147483647 and does not return in any useful time ("1e-2147483647", "1e2147483648", which
// wraps to -2147483648), so such strings are not generated; ours answers them at once.
func (g generator) exponent(shortMantissa bool, huge *bool) string {
	e := g.pick("e", "E")
	sign := g.pick("", "", "+", "-")
	switch {
	case shortMantissa && g.r.IntN(8) == 0:
		*huge = true
		return e + g.pick("", "+") + g.pick("2147483647", "9999999999", "4294967296", "4294967297", "19", "28", "29", "30", "40")
	case g.r.IntN(20) == 0:
		return e + sign + g.pick("", "x", "1.5", "+1") // malformed
	default:
		return e + sign + fmt.Sprint(g.r.IntN(45))
	}
}

func (g generator) quantity() string {
	var b strings.Builder
	b.WriteString(g.pick("", "", "", "", "+", "-", "-", "--", "+-"))
	b.WriteString(strings.Repeat("0", g.r.IntN(4)*g.r.IntN(2)))
	intDigits := g.digits([]int{3, 9, 20, 30}[g.r.IntN(4)])
	b.WriteString(intDigits)
	frac := ""
	switch g.r.IntN(4) {
	case 0:
		frac = "." + g.digits([]int{3, 9, 20, 40}[g.r.IntN(4)])
	case 1:
		frac = g.pick(".", ".0", ".5", ".000000001", ".0000000001", ".9999999999999")
	}
	b.WriteString(frac)
	short := len(intDigits) <= 18 && frac == ""
	huge := false
	switch g.r.IntN(10) {
	case 0, 1, 2:
		b.WriteString(g.exponent(short, &huge))
	case 3:
		b.WriteString(g.pick("K", "KiB", "Gb", "i", "mi", "ee5", "e", "E+", "Mii", "mm", "kk", "G1", "Ki2", "x", " ", "e1e1"))
	default:
		b.WriteString(suffixes[g.r.IntN(len(suffixes))])
	}
	s := b.String()
	if huge {
		return s // a mutation could send it to Go's arbitrary-precision path (see exponent)
	}
	switch g.r.IntN(30) {
	case 0:
		s = g.pick(" ", "\t", "\n") + s
	case 1:
		s = s + g.pick(" ", "\t", "\n", "\x00")
	case 2:
		if len(s) > 0 {
			i := g.r.IntN(len(s) + 1)
			s = s[:i] + string(rune(g.r.IntN(128))) + s[i:]
		}
	case 3:
		s = string([]byte{byte(g.r.IntN(256)), byte(g.r.IntN(256))}) + s
	}
	return s
}

// fixed are the edges every run covers, whatever the seed.
var fixed = []string{
	"", "0", "-0", "+0", "0.0", ".", "-", "+", "1", "-1", "0.5", ".5", "5.", "1e3", "1E3", "1e-3",
	"1e+3", "100m", "1n", "0.1n", "1e-10", "-1e-10", "0.0000000001", "1u", "1.5Gi", "1.5Ki",
	"0.5Ki", "9223372036854775807", "9223372036854775808", "-9223372036854775808",
	"92233720368547758070", "9223372036854775807E", "9Ei", "8Ei", "7Ei", "7.9Ei", "1Ei",
	"123456789012345678", "1234567890123456789", "12E", "18E", "99999999999999999E",
	"1e2147483647", "-1e2147483647", "1e-2147483647x", "1e4294967296", "1e4294967297",
	"1e9223372036854775807", "1e9223372036854775808", "1e-9223372036854775808", "1e18446744073709551616", "5e2147483647", "1e40",
	"1e28", "1e29", "170141183460469231731e8", "1.70141183460469231731e29", "0e2147483647",
	"0000000000000000000000000000001", "1.000000000000000000000000001", "1Ki ", " 1Ki", "1 Ki",
	"1KiB", "1k", "1K", "1mi", "1Mi", "0x10", "1_000", "1,5", "١", "+-1", "1e", "1e-", "e3",
	"Ki", "m", "-.5", "+.5", "0.", "00.00", "1.2.3", "1e1.5", "1e01", "1e-09", "999999999Gi",
	"9999999999Gi", "1Pi", "4096Pi", "8191Pi", "8192Pi", "0.001m", "0.0001u",
}

func main() {
	tool := flag.String("ours", "", "rjg-differential-ours binary")
	seed := flag.Uint64("seed", 20261203, "generator seed")
	n := flag.Int("cases", 20000, "generated cases (the fixed edge cases are added)")
	verbose := flag.Bool("v", false, "print every known difference")
	flag.Parse()
	if *tool == "" {
		fmt.Fprintln(os.Stderr, "usage: quantity -ours PATH [-seed N] [-cases N] [-v]")
		os.Exit(2)
	}
	g := generator{rand.New(rand.NewPCG(*seed, 0x5eed))}
	cases := append([]string{}, fixed...)
	for i := 0; i < *n; i++ {
		cases = append(cases, g.quantity())
	}
	answers, err := ours.Ask(*tool, "quantity", cases)
	if err != nil {
		fmt.Fprintln(os.Stderr, "quantity:", err)
		os.Exit(2)
	}
	failed, tooLarge, accepted, refused := 0, 0, 0, 0
	report := func(s, what string) {
		failed++
		if failed <= 50 {
			fmt.Printf("MISMATCH %q: %s\n", s, what)
		}
	}
	for i, s := range cases {
		q, goErr := resource.ParseQuantity(s)
		ans := answers[i]
		if goErr != nil {
			refused++
			if ans != "refused" {
				report(s, fmt.Sprintf("Go refuses (%v), ours answers %q", goErr, ans))
			}
			continue
		}
		accepted++
		want, fits := goNanos(q)
		if !fits {
			if ans == "refused" {
				tooLarge++
				if *verbose {
					fmt.Printf("known difference too-large %q: Go holds %s, ours refuses\n", s, q.String())
				}
			} else {
				report(s, fmt.Sprintf("Go's value %s is beyond 2^127-1 nano-units, ours answers %q", q.String(), ans))
			}
			continue
		}
		fields := strings.Fields(ans)
		if len(fields) != 3 || fields[0] != "ok" {
			report(s, fmt.Sprintf("Go accepts it as %s (%s nano-units), ours answers %q", q.String(), want, ans))
			continue
		}
		if fields[1] != want.String() {
			report(s, fmt.Sprintf("value: Go %s nano-units (%s), ours %s", want, q.String(), fields[1]))
			continue
		}
		back, err := resource.ParseQuantity(fields[2])
		if err != nil {
			report(s, fmt.Sprintf("ours prints %q, which Go refuses: %v", fields[2], err))
			continue
		}
		if got, ok := goNanos(back); !ok || got.Cmp(want) != 0 {
			report(s, fmt.Sprintf("ours prints %q, which Go reads as %s, not %s nano-units", fields[2], back.String(), want))
		}
	}
	fmt.Printf("quantity: seed %d, %d cases (%d accepted by Go, %d refused), %d known differences (too-large)\n",
		*seed, len(cases), accepted, refused, tooLarge)
	fmt.Printf("quantity: %d passed, %d failed\n", len(cases)-failed, failed)
	if failed > 0 {
		os.Exit(1)
	}
}
