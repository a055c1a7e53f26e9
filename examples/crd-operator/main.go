package main

import "github.com/ctrlkit/ctrlkit/controller/manager/managerflags"

func main() { managerflags.Main(component, run) }
