//go:build forgetsoon

package state

// forgetSoonBuild, in a build with the tag forgetsoon (go build -tags
// forgetsoon), makes every tracker forget quiet threads as soon as they
// may be: a build for comparing outputs with the shipped one
// (scripts/same-output.sh), as TestForgetSame does for the model alone.
const forgetSoonBuild = true
