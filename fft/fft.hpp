// The public FFT API in one include: Plan, Options, boxes, timings, wisdom.
#pragma once
#include "coll/error.hpp"
#include "fft/box.hpp"
#include "fft/decomposition.hpp"
#include "fft/options.hpp"
#include "fft/plan.hpp"
#include "fft/timings.hpp"
#include "fft/wisdom.hpp"
