#pragma once
// Closed lists of words the results model carries as strings (no enum): the
// dtype grid, every dtype a case may declare, and why a function may have no
// case in a grid dtype. schemas/vocabulary.json is written from these and the
// model's enums (tools/vocabulary.cpp); the probe reads that file.

#include <array>
#include <string_view>

namespace mudjack::model {

// The dtype grid (docs/design.md): every paper function gets a case in each,
// or an excuse from kExcuseReasons.
inline constexpr std::array<std::string_view, 12> kGridDtypes = {
    "float16", "bfloat16", "float32", "float64", "complex64", "complex128",
    "int8",    "uint8",    "int16",   "int32",   "int64",     "bool"};

// Dtype names a case may declare beyond the grid; any other name is a suite
// error (a typo such as "fp16").
inline constexpr std::array<std::string_view, 4> kExtraDtypes = {"uint16", "uint32", "uint64",
                                                                 "string"};

// Why a function has no case in a grid dtype: it takes no tensor, only
// integer (or bool) tensors, only strings, or its API fixes the dtype.
inline constexpr std::array<std::string_view, 4> kExcuseReasons = {
    "no_tensor_input", "integer_only", "string_only", "dtype_fixed_by_api"};

}  // namespace mudjack::model
