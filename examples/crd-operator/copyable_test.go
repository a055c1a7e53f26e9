package main

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The example is meant to be copied out of the repository: its non-test
// files import no package of ctrlkit's that a user cannot import (an
// internal one), so the copy builds.
func TestImportsNothingInternal(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	api, err := filepath.Glob("api/*/*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range append(files, api...) {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		parsed, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range parsed.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if strings.HasPrefix(path, "github.com/ctrlkit/ctrlkit/") && strings.Contains(path+"/", "/internal/") {
				t.Errorf("%s imports %s: a copy of the example outside the repository would not build", f, path)
			}
		}
	}
}
