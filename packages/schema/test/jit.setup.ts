// installs Effect's schema JIT before any schema of the tests is used
import "effect/schema/SchemaJITCompiler/enable"
