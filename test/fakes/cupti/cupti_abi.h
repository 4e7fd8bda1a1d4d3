// The ABI the fake implements: CUPTI's own declarations (cupti.h brings the activity, callback,
// event, result and version APIs and the record structs), so every exported definition is
// checked against the real signature by the compiler.
#pragma once

#include <cupti.h>
