// go_cgo.go — a Go program with cgo, run under libpostmortem-preload.so
// (test_runtimes.c).  "c": C code called from Go faults (Go prints its own
// crash output and exits 2).  "go": Go code dereferences nil and recovers the
// panic, as net/http does for each request (the program goes on, exits 0).
// Threads locked in Go wait meanwhile, so the report has Go's threads to freeze.
package main

/*
#include <stdint.h>

static void
c_fault(void)
{
	*(volatile int *)(uintptr_t)16 = 1;
}
*/
import "C"

import (
	"fmt"
	"os"
	"runtime"
)

func lockedWaiters(n int) {
	started := make(chan bool)
	for i := 0; i < n; i++ {
		go func() {
			runtime.LockOSThread()
			started <- true
			select {}
		}()
	}
	for i := 0; i < n; i++ {
		<-started
	}
}

func nilDeref() (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	var p *int
	return fmt.Errorf("%d", *p)
}

func main() {
	lockedWaiters(3)
	switch os.Args[1] {
	case "c":
		C.c_fault()
	case "go":
		fmt.Println("recovered:", nilDeref())
	}
}
