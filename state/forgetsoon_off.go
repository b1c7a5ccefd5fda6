//go:build !forgetsoon

package state

// forgetSoonBuild: see forgetsoon_on.go; the shipped build keeps quiet
// threads their while.
const forgetSoonBuild = false
