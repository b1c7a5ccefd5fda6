module github.com/wallfold/wallfold

go 1.26.0

require (
	github.com/alecthomas/kong v1.17.0
	github.com/google/pprof v0.0.0-20261105003125-4bf881d7fb0b
)
