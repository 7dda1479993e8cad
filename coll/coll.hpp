// The whole coll layer in one include.
#pragma once
#include "coll/alltoall.hpp"
#include "coll/comm.hpp"
#include "coll/engine.hpp"
#include "coll/error.hpp"
#include "coll/primitives.hpp"
#include "coll/request.hpp"
#include "coll/schedule.hpp"
#include "coll/transport.hpp"
