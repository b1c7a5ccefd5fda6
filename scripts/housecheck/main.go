// Command housecheck enforces the house rules on the module's Go files
// (tests included): no file over 600 lines, no function over 100 lines
// (from func to its closing brace), no struct type over 20 fields (each
// named field counts one, an embedded one counts one). It prints each
// breach and exits 1 when there is one.
//
//	go run ./scripts/housecheck [DIR]
package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

const (
	maxFileLines   = 600
	maxFuncLines   = 100
	maxStructField = 20
)

func main() {
	root := "."
	if len(os.Args) > 1 {
		root = os.Args[1]
	}
	var breaches []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		b, err := check(path)
		breaches = append(breaches, b...)
		return err
	})
	for _, b := range breaches {
		fmt.Println(b)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "housecheck:", err)
		os.Exit(2)
	}
	if len(breaches) > 0 {
		os.Exit(1)
	}
}

// check returns the file's breaches of the rules.
func check(path string) ([]string, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, 0)
	if err != nil {
		return nil, err
	}
	var out []string
	if n := fset.File(f.Pos()).LineCount(); n > maxFileLines {
		out = append(out, fmt.Sprintf("%s: %d lines (at most %d)", path, n, maxFileLines))
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.FuncDecl:
			if l := fset.Position(x.End()).Line - fset.Position(x.Pos()).Line + 1; l > maxFuncLines {
				out = append(out, fmt.Sprintf("%s: func %s is %d lines (at most %d)", fset.Position(x.Pos()), x.Name.Name, l, maxFuncLines))
			}
		case *ast.TypeSpec:
			if st, ok := x.Type.(*ast.StructType); ok {
				if c := fields(st); c > maxStructField {
					out = append(out, fmt.Sprintf("%s: struct %s has %d fields (at most %d)", fset.Position(x.Pos()), x.Name.Name, c, maxStructField))
				}
			}
		}
		return true
	})
	return out, nil
}

// fields counts a struct's fields: each name, or one for an embedded type.
func fields(st *ast.StructType) int {
	n := 0
	for _, f := range st.Fields.List {
		n += max(1, len(f.Names))
	}
	return n
}
