// The whole coll layer in one include.
#pragma once
#include "nbfft/coll/alltoall.hpp"
#include "nbfft/coll/comm.hpp"
#include "nbfft/coll/engine.hpp"
#include "nbfft/error.hpp"
#include "nbfft/coll/primitives.hpp"
#include "nbfft/coll/request.hpp"
#include "nbfft/coll/schedule.hpp"
#include "nbfft/coll/transport.hpp"
