// Text helpers shared by the printer, the diagnostics and the runtime.
#ifndef PIPESPLIT_SUPPORT_TEXT_H_
#define PIPESPLIT_SUPPORT_TEXT_H_

#include <string>
#include <string_view>

namespace pipesplit {

// A double-quoted Python string literal as TVM's printer writes it: \" \\ \t \r \n escaped,
// every other byte outside 0x20..0x7E as \xHH (upper-case hex digits).
std::string QuoteString(std::string_view text);

// A float as TVM prints it: integral values in fixed notation with one decimal whatever their
// magnitude ("1.0", "100000000000000000000.0"), others with 17 significant digits
// ("9.9999999999999995e-07"); non-finite values bare: "inf", "-inf", "nan", "-nan".
std::string FormatFloat(double value);

// A float as a literal in printed TVMScript: FormatFloat, with the non-finite values, which
// Python has no literal for, as quoted strings ("\"inf\"", "\"nan\"").
std::string FloatLiteral(double value);

// Reads a whole file; returns false (and leaves `error` set) when it cannot.
bool ReadFile(const std::string& path, std::string* contents, std::string* error);

}  // namespace pipesplit

#endif  // PIPESPLIT_SUPPORT_TEXT_H_
