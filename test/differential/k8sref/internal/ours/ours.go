// Package ours runs rayjob-guard's side of a differential test: the test-only C++ tool
// (test/differential/ours.cpp), one case a line, hex-encoded so that any byte can be sent, one
// answer a line back.
package ours

import (
	"bufio"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
)

// Ask sends every case to `tool mode` and returns its answers, in order.
func Ask(tool, mode string, cases []string) ([]string, error) {
	cmd := exec.Command(tool, mode)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", tool, err)
	}
	go func() {
		w := bufio.NewWriter(stdin)
		for _, c := range cases {
			fmt.Fprintln(w, hex.EncodeToString([]byte(c)))
		}
		w.Flush()
		stdin.Close()
	}()
	var answers []string
	r := bufio.NewReaderSize(stdout, 1<<16)
	for {
		line, err := r.ReadString('\n')
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		answers = append(answers, strings.TrimSuffix(line, "\n"))
	}
	if err := cmd.Wait(); err != nil {
		return nil, fmt.Errorf("%s %s: %w", tool, mode, err)
	}
	if len(answers) != len(cases) {
		return nil, fmt.Errorf("%s %s answered %d of %d cases", tool, mode, len(answers), len(cases))
	}
	return answers, nil
}
