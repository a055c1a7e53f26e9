package main

import "github.com/ctrlkit/ctrlkit/examples/internal/managerflags"

func main() { managerflags.Main(component, run) }
