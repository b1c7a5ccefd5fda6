package diff

import (
	"math"
	"testing"
)

// Each node holds its subtree: its own stacks' weights plus its
// children's, on each side; the root holds the totals.
func TestTreeHoldsItsSubtree(t *testing.T) {
	before := side("b", map[string]Weights{"p;f;g": {4, 8}, "p;f": {1, 1}, "q;h": {2, 2}})
	after := side("a", map[string]Weights{"p;f;g": {1, 2}, "p;k": {3, 3}})
	d, err := Compare(before, after, false)
	if err != nil {
		t.Fatal(err)
	}
	root := d.Tree()
	if root.Before != d.Total.Before || root.After != d.Total.After {
		t.Errorf("root %v %v, totals %v %v", root.Before, root.After, d.Total.Before, d.Total.After)
	}
	var check func(n *Node, path string)
	check = func(n *Node, path string) {
		b, a := n.SelfBefore, n.SelfAfter
		for i, c := range n.Children {
			if i > 0 && n.Children[i-1].Name >= c.Name {
				t.Errorf("%s: children out of order", path)
			}
			b, a = b.add(c.Before), a.add(c.After)
			check(c, path+";"+c.Name)
		}
		if math.Abs(b.Wall-n.Before.Wall) > 1e-9 || math.Abs(a.Wall-n.After.Wall) > 1e-9 || b.CPU != n.Before.CPU || a.CPU != n.After.CPU {
			t.Errorf("%s: self and children %v %v, node %v %v", path, b, a, n.Before, n.After)
		}
	}
	check(root, "all")
	f := root.Children[0].Children[0]
	if f.Name != "f" || f.Before != (Weights{5, 9}) || f.After != (Weights{1, 2}) || f.Delta() != (Weights{-4, -7}) {
		t.Errorf("p;f: %+v", f)
	}
	if h := root.Children[1].Children[0]; h.Name != "h" || h.After != (Weights{}) || h.SelfBefore != (Weights{2, 2}) {
		t.Errorf("q;h: %+v", h)
	}
}
