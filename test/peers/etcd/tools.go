//go:build tools

// Package tools names the command test/peers/build-kube.sh builds (etcd's main package is the
// server module's root), so `go mod tidy` keeps what it needs in go.sum.
package tools

import _ "go.etcd.io/etcd/server/v3"
