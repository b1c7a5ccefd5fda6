package diff

import (
	"sort"
	"strings"
)

// Node is a frame of a differential flame graph: its weights on each side,
// inclusive of its callees (a flame graph's widths), and its callees. A
// flame graph of the change draws AFTER's wall as the width and colours
// by Delta's wall (grown, shrunk); a frame only BEFORE has is 0 wide there.
type Node struct {
	Name          string
	Before, After Weights // Before scaled by the Diff's Scale
	// Self are the weights of the stacks that end at this frame.
	SelfBefore, SelfAfter Weights
	Children              []*Node // by name
}

// Delta is After minus Before.
func (n *Node) Delta() Weights { return n.After.sub(n.Before) }

// Tree is the stacks as a tree under a root named "all" (the totals):
// each stack's weights added to every frame on its path. Frames with the
// same name under the same parent are one node, as in a flame graph.
func (d *Diff) Tree() *Node {
	root := &Node{Name: "all"}
	index := map[*Node]map[string]*Node{}
	child := func(n *Node, name string) *Node {
		m := index[n]
		if m == nil {
			m = map[string]*Node{}
			index[n] = m
		}
		c := m[name]
		if c == nil {
			c = &Node{Name: name}
			m[name] = c
			n.Children = append(n.Children, c)
		}
		return c
	}
	for _, r := range d.Stacks {
		n := root
		n.Before, n.After = n.Before.add(r.Before), n.After.add(r.After)
		for _, f := range strings.Split(r.Name, ";") {
			n = child(n, f)
			n.Before, n.After = n.Before.add(r.Before), n.After.add(r.After)
		}
		n.SelfBefore, n.SelfAfter = n.SelfBefore.add(r.Before), n.SelfAfter.add(r.After)
	}
	var order func(n *Node)
	order = func(n *Node) {
		sort.Slice(n.Children, func(i, j int) bool { return n.Children[i].Name < n.Children[j].Name })
		for _, c := range n.Children {
			order(c)
		}
	}
	order(root)
	return root
}
