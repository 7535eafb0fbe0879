// tests/support.cpp — the test support that every test calls most, compiled once per test build with optimisation
// (tests/CMakeLists.txt: tensorops_test_support): the random stream and the guarded buffers of the built-in element
// types. The test translation units see these as explicit instantiations declared in support.hpp
// (TENSOROPS_TEST_SUPPORT_COMPILED) and do not compile them again.
#include "support.hpp"

namespace tensorops_test {

template class basic_test_rng<std::mt19937_64>;
template int test_rng::uniform<int>(int, int);
template long test_rng::uniform<long>(long, long);
template unsigned long test_rng::uniform<unsigned long>(unsigned long, unsigned long);
template unsigned int test_rng::uniform<unsigned int>(unsigned int, unsigned int);
template unsigned short test_rng::uniform<unsigned short>(unsigned short, unsigned short);

template class guarded_buffer<double>;
template class guarded_buffer<float>;
template class guarded_buffer<float16>;
template class guarded_buffer<bfloat16>;
template class guarded_buffer<std::int8_t>;
template class guarded_buffer<std::int16_t>;
template class guarded_buffer<std::int32_t>;
template class guarded_buffer<std::int64_t>;
template class guarded_buffer<std::uint8_t>;
template class guarded_buffer<std::uint16_t>;
template class guarded_buffer<std::uint32_t>;
template class guarded_buffer<std::uint64_t>;

}  // namespace tensorops_test
