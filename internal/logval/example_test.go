package logval_test

import (
	"fmt"
	"strings"

	"github.com/mcpmount/mcpmount/internal/logval"
)

func ExampleString() {
	fmt.Println(logval.String("abc\nlevel=ERROR"))
	fmt.Println(logval.String(strings.Repeat("k", 700000)))
	// Output:
	// "abc\nlevel=ERROR"
	// "kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk…" (700000 bytes)
}
