// yaml-reference: reads YAML files the way kubectl reads `-f FILE` and prints, per file, one JSON
// line: {"name": N, "docs": [...]} with each document's JSON, or {"name": N, "error": E}; and
// "strict_error" when sigs.k8s.io/yaml's strict conversion (duplicate keys are errors) refuses a
// document that kubectl's non-strict one accepts; and "key_collision" when two different YAML keys
// of one mapping become the same JSON key (`1` and `1.0`, or `1e39` and `1e40`, which float32
// rounds to the same infinity), so that kubectl keeps one of the values, whichever Go's map
// iteration reaches last.
//
// kubectl (k8s.io/cli-runtime's FileVisitor and StreamVisitor): the file goes through
// unicode.BOMOverride (a UTF-8 or UTF-16 byte-order mark at the start is stripped, UTF-16 is
// decoded), then k8s.io/apimachinery/pkg/util/yaml.NewYAMLOrJSONDecoder(r, 4096), whose YAML side
// splits the stream at `---` lines (NewYAMLReader) and converts each piece with
// sigs.k8s.io/yaml.Unmarshal; a document that is empty or null after trimming is skipped.
//
// A test-only program: test/differential/yaml/run.py builds and runs it.
//
//	usage: yaml-reference FILE...
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	goyaml "go.yaml.in/yaml/v2"
	"golang.org/x/text/encoding/unicode"
	"golang.org/x/text/transform"
	k8syaml "k8s.io/apimachinery/pkg/util/yaml"
	sigsyaml "sigs.k8s.io/yaml"
)

type result struct {
	Name        string            `json:"name"`
	Docs        []json.RawMessage `json:"docs,omitempty"`
	Error       string            `json:"error,omitempty"`
	StrictError string            `json:"strict_error,omitempty"`
	Collision   string            `json:"key_collision,omitempty"`
}

func bomOverride(data []byte) io.Reader {
	return transform.NewReader(bytes.NewReader(data), unicode.BOMOverride(unicode.UTF8.NewDecoder()))
}

// kubectl returns the documents as StreamVisitor.Visit gets them.
func kubectl(data []byte) ([]json.RawMessage, error) {
	d := k8syaml.NewYAMLOrJSONDecoder(bomOverride(data), 4096)
	var docs []json.RawMessage
	for {
		var raw json.RawMessage
		if err := d.Decode(&raw); err != nil {
			if errors.Is(err, io.EOF) {
				return docs, nil
			}
			return nil, err
		}
		raw = bytes.TrimSpace(raw)
		if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
			continue
		}
		docs = append(docs, raw)
	}
}

// strict converts every piece of the same split with YAMLToJSONStrict.
func strict(data []byte) error {
	ps, err := pieces(data)
	if err != nil {
		return err
	}
	for _, p := range ps {
		if _, err := sigsyaml.YAMLToJSONStrict(p); err != nil {
			return err
		}
	}
	return nil
}

// pieces returns the `---` pieces kubectl converts one by one.
func pieces(data []byte) ([][]byte, error) {
	b, err := io.ReadAll(bomOverride(data))
	if err != nil {
		return nil, err
	}
	r := k8syaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(b)))
	var out [][]byte
	for {
		piece, err := r.Read()
		if errors.Is(err, io.EOF) && len(piece) == 0 {
			return out, nil
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, err
		}
		out = append(out, piece)
	}
}

// jsonKey is the JSON key sigs.k8s.io/yaml makes of a decoded YAML key: the key goes back through
// go-yaml as a one-entry mapping and through the reference's own conversion.
func jsonKey(k interface{}) (string, bool) {
	y, err := goyaml.Marshal(map[interface{}]interface{}{k: nil})
	if err != nil {
		return "", false
	}
	j, err := sigsyaml.YAMLToJSON(y)
	if err != nil {
		return "", false
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(j, &m) != nil || len(m) != 1 {
		return "", false
	}
	for name := range m {
		return name, true
	}
	return "", false
}

// collision returns a JSON key that two different keys of one mapping of v become, or "".
func collision(v interface{}) string {
	switch t := v.(type) {
	case map[interface{}]interface{}:
		seen := map[string]bool{}
		for k, val := range t {
			if name, ok := jsonKey(k); ok {
				if seen[name] {
					return name
				}
				seen[name] = true
			}
			if c := collision(val); c != "" {
				return c
			}
		}
	case []interface{}:
		for _, val := range t {
			if c := collision(val); c != "" {
				return c
			}
		}
	}
	return ""
}

// keyCollision checks every piece that go-yaml decodes.
func keyCollision(data []byte) string {
	ps, err := pieces(data)
	if err != nil {
		return ""
	}
	for _, p := range ps {
		var v interface{}
		if goyaml.Unmarshal(p, &v) != nil {
			continue
		}
		if c := collision(v); c != "" {
			return c
		}
	}
	return ""
}

func main() {
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	for _, name := range os.Args[1:] {
		data, err := os.ReadFile(name)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		res := result{Name: name}
		docs, err := kubectl(data)
		if err != nil {
			res.Error = err.Error()
		} else {
			res.Docs = docs
			if serr := strict(data); serr != nil {
				res.StrictError = serr.Error()
			}
			res.Collision = keyCollision(data)
		}
		if err := enc.Encode(res); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
	}
}
