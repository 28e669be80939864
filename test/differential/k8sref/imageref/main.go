// Command imageref compares rayjob-guard's policy::parse_image_ref (policy/image_ref.cpp) with
// github.com/distribution/reference over generated image references from a fixed seed.
//
// The Go function: ParseNormalizedNamed, because kubelet parses a container's image with it
// (k8s.io/kubernetes pkg/util/parsers.ParseImageName) before pulling, and a reference it refuses
// never runs (ErrInvalidImageName). ParseAnyReference would also accept a bare digest or a
// 64-hex image ID as a digest reference, which a pod's image cannot be.
//
// What is compared, per case: validity (both accept or both refuse), and for accepted ones the
// domain (reference.Domain), the repository path (reference.Path), the tag and the digest. Ours
// keeps the reference as written (registry empty when none is named, "ubuntu" not
// "library/ubuntu"); it is normalised here by the rule image_matches applies to Docker Hub
// spellings: no registry or index.docker.io means docker.io, and a one-component path on
// docker.io gets "library/".
//
// Known difference (ours refuses what Go accepts), counted and printed:
//   - domain-less path: a first component that has a '.' or ':' but is no valid host
//     ("a_b.com/x", "u__v.io/x") fails Go's domain grammar, and Go then matches the whole name as
//     a path with no domain at all (reference.Domain is ""), which no registry serves under that
//     name; ours refuses it as a bad registry.
//
// Usage: imageref -ours PATH [-seed N] [-cases N]
// Exit 0 when every case agrees, 1 on a mismatch, 2 on a usage or tool error. The summary line
// is "imageref: N passed, M failed".
package main

import (
	// go-digest accepts only the algorithms whose hash is linked; kubelet links both.
	_ "crypto/sha256"
	_ "crypto/sha512"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"

	"github.com/distribution/reference"

	"rayjob-guard.test/differential/k8sref/internal/ours"
)

type parts struct{ domain, path, tag, digest string }

func goParse(s string) (parts, error) {
	n, err := reference.ParseNormalizedNamed(s)
	if err != nil {
		return parts{}, err
	}
	p := parts{domain: reference.Domain(n), path: reference.Path(n)}
	if t, ok := n.(reference.Tagged); ok {
		p.tag = t.Tag()
	}
	if d, ok := n.(reference.Digested); ok {
		p.digest = d.Digest().String()
	}
	return p, nil
}

// normalised turns ours' fields (registry, repository as written) into Go's.
func normalised(registry, repository, tag, digest string) parts {
	domain := registry
	if domain == "" || domain == "index.docker.io" {
		domain = "docker.io"
	}
	path := repository
	if domain == "docker.io" && !strings.Contains(path, "/") {
		path = "library/" + path
	}
	return parts{domain, path, tag, digest}
}

type generator struct{ r *rand.Rand }

func (g generator) pick(xs ...string) string { return xs[g.r.IntN(len(xs))] }

func (g generator) str(alphabet string, min, max int) string {
	n := min + g.r.IntN(max-min+1)
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[g.r.IntN(len(alphabet))]
	}
	return string(b)
}

const (
	lowerAlnum = "abcdefghijklmnopqrstuvwxyz0123456789"
	hexLower   = "0123456789abcdef"
	wordChars  = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_"
)

func (g generator) registry() string {
	switch g.r.IntN(12) {
	case 0, 1, 2, 3:
		return ""
	case 4:
		return g.pick("docker.io", "index.docker.io", "Docker.io", "registry-1.docker.io")
	case 5:
		return g.pick("localhost", "localhost:5000", "localhost:", "LOCALHOST", "localhost:5000:1")
	case 6:
		return g.pick("[::1]", "[::1]:5000", "[fe80::1%eth0]", "[::ffff:1.2.3.4]", "[]:5000", "[::1", "[2001:DB8::1]:443", "[::1]:")
	case 7:
		return g.pick("Foo", "MyRegistry", "UPPER", "fooBar") // upper case: a domain to Go
	case 8:
		return g.pick("-bad.com", "bad-.com", "a_b.com", "a..b", ".com", "example.com:", "example.com:abc", "example.com:08080", "ex-ample.com:1")
	default:
		host := g.str(lowerAlnum+"-", 1, 12)
		for i := g.r.IntN(3); i >= 0; i-- {
			host += "." + g.str(lowerAlnum+"-ABC", 1, 10)
		}
		if g.r.IntN(3) == 0 {
			host += ":" + g.str("0123456789", 1, 5)
		}
		return host
	}
}

func (g generator) component() string {
	switch g.r.IntN(14) {
	case 0:
		return g.pick("library", "ray", "rayproject", "ubuntu", "a", "0")
	case 1:
		return g.str(lowerAlnum+"._-", 1, 8) // separators anywhere
	case 2:
		return g.str(lowerAlnum+"ABC", 1, 8) // upper case
	case 3:
		return g.pick("", "a..b", "a___b", "a__b", "a---b", "a.-b", "-a", "a-", "_a", "a.", "a%b", "a b")
	case 4:
		return g.str(hexLower, 64, 64) // an image ID
	default:
		c := g.str(lowerAlnum, 1, 10)
		for i := g.r.IntN(3); i > 0; i-- {
			c += g.pick(".", "_", "__", "-", "--") + g.str(lowerAlnum, 1, 6)
		}
		return c
	}
}

func (g generator) tag() string {
	switch g.r.IntN(10) {
	case 0, 1, 2:
		return ""
	case 3:
		return ":" + g.pick("", ".x", "-x", "x:y", "latest", "LATEST", "a/b", "2.41.0@", "v1+build")
	case 4:
		return ":" + g.str(wordChars, 1, 1) + g.str(wordChars+".-", 126, 129) // the 128 limit
	default:
		return ":" + g.str(wordChars, 1, 1) + g.str(wordChars+".-", 0, 20)
	}
}

func (g generator) digest() string {
	switch g.r.IntN(12) {
	case 0, 1, 2, 3, 4:
		return ""
	case 5, 6:
		return "@sha256:" + g.str(hexLower, 64, 64)
	case 7:
		return "@sha512:" + g.str(hexLower, 128, 128)
	case 8:
		return "@sha384:" + g.str(hexLower, 96, 96)
	case 9:
		alg := g.pick("sha256", "sha512", "sha384", "md5", "sha256+b64", "blake3", "SHA256", "sha1", "multihash+base58", "")
		n := []int{0, 31, 32, 40, 63, 64, 65, 96, 128}[g.r.IntN(9)]
		return "@" + alg + ":" + g.str(hexLower+"ABCDEF", n, n)
	case 10:
		return "@sha256:" + g.str(hexLower+"ABCDEFxyz", 64, 64)
	default:
		return "@" + g.pick("", "sha256", "sha256:", ":"+strings.Repeat("a", 64), "sha256:"+strings.Repeat("a", 64)+"@x")
	}
}

func (g generator) reference() string {
	var b strings.Builder
	if r := g.registry(); r != "" {
		b.WriteString(r + "/")
	}
	n := 1 + g.r.IntN(4)
	if g.r.IntN(40) == 0 {
		n = 30 + g.r.IntN(30) // long names around the 255 limit
	}
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString("/")
		}
		b.WriteString(g.component())
	}
	b.WriteString(g.tag())
	b.WriteString(g.digest())
	s := b.String()
	switch g.r.IntN(40) {
	case 0:
		s = g.pick(" ", "\t", "/") + s
	case 1:
		s += g.pick(" ", "\n", "/", "@", ":")
	case 2:
		if len(s) > 0 {
			i := g.r.IntN(len(s))
			s = s[:i] + string(rune(32+g.r.IntN(95))) + s[i+1:]
		}
	}
	return s
}

var fixed = []string{
	"", "ubuntu", "ubuntu:latest", "library/ubuntu", "docker.io/ubuntu", "docker.io/library/ubuntu",
	"index.docker.io/ubuntu", "rayproject/ray:2.41.0", "rayproject/ray:2.41.0-py310-gpu",
	"123456789012.dkr.ecr.us-east-1.amazonaws.com/ray-tenant:2.52.0-py310", "localhost/foo",
	"localhost:5000/foo:bar", "localhost", "localhost:5000", "[::1]:5000/foo", "[::1]/foo",
	"Foo/bar", "foo/Bar", "UPPER", "ubuntu:LATEST", "ghcr.io/Org/img", "a/b/c/d/e/f",
	strings.Repeat("a", 64), strings.Repeat("a", 64) + ":tag", "sha256:" + strings.Repeat("a", 64),
	"foo@sha256:" + strings.Repeat("a", 64), "foo@sha256:" + strings.Repeat("A", 64),
	"foo@sha512:" + strings.Repeat("a", 128), "foo@md5:" + strings.Repeat("a", 32),
	"foo:bar@sha256:" + strings.Repeat("0", 64), "foo@", "foo:", ":tag", "@sha256:" + strings.Repeat("a", 64),
	"/foo", "foo/", "foo//bar", "foo:bar:baz", "foo:5000", "foo.com:5000", "foo.com:5000/bar:5000",
	strings.Repeat("a", 255), strings.Repeat("a", 248), strings.Repeat("a", 247),
	"ghcr.io/" + strings.Repeat("a", 255), "ghcr.io/" + strings.Repeat("a", 256),
	strings.Repeat("a/", 120) + "a", "example.com/" + strings.Repeat("a/", 127) + "a",
}

func main() {
	tool := flag.String("ours", "", "rjg-differential-ours binary")
	seed := flag.Uint64("seed", 20261203, "generator seed")
	n := flag.Int("cases", 20000, "generated cases (the fixed edge cases are added)")
	flag.Parse()
	if *tool == "" {
		fmt.Fprintln(os.Stderr, "usage: imageref -ours PATH [-seed N] [-cases N]")
		os.Exit(2)
	}
	g := generator{rand.New(rand.NewPCG(*seed, 0x1ea9e))}
	cases := append([]string{}, fixed...)
	for i := 0; i < *n; i++ {
		cases = append(cases, g.reference())
	}
	answers, err := ours.Ask(*tool, "imageref", cases)
	if err != nil {
		fmt.Fprintln(os.Stderr, "imageref:", err)
		os.Exit(2)
	}
	failed, accepted, known := 0, 0, 0
	report := func(s, what string) {
		failed++
		if failed <= 50 {
			fmt.Printf("MISMATCH %q: %s\n", s, what)
		}
	}
	for i, s := range cases {
		want, goErr := goParse(s)
		f := strings.Split(answers[i], "\t")
		if goErr != nil {
			if f[0] != "refused" {
				report(s, fmt.Sprintf("Go refuses (%v), ours accepts %q", goErr, answers[i]))
			}
			continue
		}
		accepted++
		if want.domain == "" && f[0] == "refused" {
			// Known difference: a first component with a '.' or ':' that is no valid host
			// ("a_b.com/x") is taken by Go as part of a domain-less path; ours refuses it.
			known++
			continue
		}
		if f[0] != "ok" || len(f) != 5 {
			report(s, fmt.Sprintf("Go accepts %+v, ours answers %q", want, answers[i]))
			continue
		}
		if got := normalised(f[1], f[2], f[3], f[4]); got != want {
			report(s, fmt.Sprintf("Go %+v, ours %+v", want, got))
		}
	}
	fmt.Printf("imageref: seed %d, %d cases (%d accepted by Go), %d known differences (domain-less path)\n", *seed, len(cases), accepted, known)
	fmt.Printf("imageref: %d passed, %d failed\n", len(cases)-failed, failed)
	if failed > 0 {
		os.Exit(1)
	}
}
