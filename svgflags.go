package main

import (
	"errors"
	"fmt"

	"github.com/wallfold/wallfold/emit"
)

// SVGFlags are -f svg's own, named as flamegraph.pl names them.
type SVGFlags struct {
	Title    string  `placeholder:"TEXT" help:"svg: the title (default: wallfold: wall time)."`
	Width    float64 `default:"1200" placeholder:"PX" help:"svg: the picture's width in pixels (default 1200, at least 300)."`
	MinWidth float64 `name:"minwidth" default:"0.3" placeholder:"PX" help:"svg: leave out frames narrower than this many pixels (default 0.3; their time stays in their parent's width)."`
	Reverse  bool    `help:"svg: the callee view: each stack reversed, leaf functions at the root level and their callers beneath (flamegraph.pl's and inferno's --reverse; their --inverted draws an icicle, which wallfold's graph is already: root at the top)."`
	// Inverted is refused with a pointer: flamegraph.pl users ask for it by
	// habit, and the issue asked for a callee view by that name.
	Inverted bool `hidden:"" help:"Refused: see --reverse."`
}

// validate names the wrong flag.
func (f *SVGFlags) validate() error {
	switch {
	case f.Inverted:
		return errors.New("--inverted: wallfold's flame graph is always an icicle (root at the top, flamegraph.pl's --inverted); for the callee view, leaf functions at the root level, use --reverse")
	case f.Width < 300:
		return fmt.Errorf("--width=%g: the svg needs at least 300 pixels for its buttons and legend", f.Width)
	case !(f.MinWidth > 0):
		return fmt.Errorf("--minwidth=%g: want a positive number of pixels (0.01 draws nearly every frame)", f.MinWidth)
	}
	return nil
}

func (f *SVGFlags) options() emit.SVGFlags {
	return emit.SVGFlags{Title: f.Title, Width: f.Width, MinWidth: f.MinWidth, Reverse: f.Reverse}
}
