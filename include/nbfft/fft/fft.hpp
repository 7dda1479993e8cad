// The public FFT API in one include: Plan, Options, boxes, timings, wisdom.
#pragma once
#include "nbfft/error.hpp"
#include "nbfft/fft/box.hpp"
#include "nbfft/fft/decomposition.hpp"
#include "nbfft/fft/direction.hpp"
#include "nbfft/fft/elements.hpp"
#include "nbfft/fft/option_table.hpp"
#include "nbfft/fft/options.hpp"
#include "nbfft/fft/plan.hpp"
#include "nbfft/fft/timings.hpp"
#include "nbfft/fft/transpose.hpp"
#include "nbfft/fft/wisdom.hpp"
