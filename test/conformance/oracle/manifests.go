// manifests.go: how both conformance oracles read their input, the KubeRay one (oracle/main.go)
// and the Kueue one (kueue-oracle/main.go). build-oracle.sh and build-kueue-oracle.sh copy it next
// to their main.go; it uses only what both modules require.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// manifestFiles returns the FILE arguments followed by the paths `list` names, one per line
// (for batches of thousands); an error when that is none at all or `list` cannot be read.
func manifestFiles(args []string, list string) ([]string, error) {
	files := append([]string(nil), args...)
	if list != "" {
		b, err := os.ReadFile(list)
		if err != nil {
			return nil, fmt.Errorf("--list: %v", err)
		}
		for _, l := range strings.Split(string(b), "\n") {
			if l = strings.TrimSpace(l); l != "" {
				files = append(files, l)
			}
		}
	}
	if len(files) == 0 {
		return nil, errors.New("no manifest given (FILE... or --list FILE)")
	}
	return files, nil
}

// judgeFiles runs judge on every file, its output buffered to stdout; a file it cannot read is
// named on stderr after `prog`. Returns whether every file was read.
func judgeFiles(prog string, files []string, judge func(out io.Writer, path string) error) bool {
	out := bufio.NewWriterSize(os.Stdout, 1<<16)
	defer out.Flush()
	ok := true
	for _, f := range files {
		if err := judge(out, f); err != nil {
			fmt.Fprintf(os.Stderr, "%s: %s: %v\n", prog, f, err)
			ok = false
		}
	}
	return ok
}

// eachDocument calls fn with the JSON of every document of the YAML or JSON file `path` that is
// not empty; doc counts from 1 over every document. A syntax error, or fn's, ends the walk.
func eachDocument(path string, fn func(doc int, js []byte) error) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(b)))
	for doc := 1; ; doc++ {
		raw, err := r.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("document %d: %v", doc, err)
		}
		js, err := yaml.YAMLToJSON(raw)
		if err != nil {
			return fmt.Errorf("document %d: %v", doc, err)
		}
		if t := bytes.TrimSpace(js); len(t) == 0 || string(t) == "null" {
			continue
		}
		if err := fn(doc, js); err != nil {
			return err
		}
	}
}

// nameOf returns metadata.name of a manifest's JSON, empty when it has none.
func nameOf(js []byte) string {
	var m struct {
		Metadata struct {
			Name string `json:"name"`
		} `json:"metadata"`
	}
	_ = json.Unmarshal(js, &m)
	return m.Metadata.Name
}

// oneLine makes s fit one tab-separated output column.
func oneLine(s string) string {
	return strings.NewReplacer("\n", " ", "\t", " ").Replace(s)
}
