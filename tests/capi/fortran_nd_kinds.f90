! Single precision and transform kinds of N-D plans through the Fortran module: real(c_float)
! / complex(c_float_complex) arrays on a precision=single plan (one field, several, split
! phase, gather and scatter) against the double plan; kinds= in Fortran order: a real
! spectrum (dct2 x dst2 on 2-D, real arrays both ways) and a mixed one (r2c along dimension
! 1, dst2 along 3 of a 3-D array), each gathered and compared with a serial transform of the
! whole array, with the kinds' wavenumbers. Then the errors: single arrays to a double plan,
! a complex spectrum to a real-spectrum plan, a kinds list of the wrong length. Outputs
! start as NaN. Stops non-zero on any failure.
program fortran_nd_kinds
  use mpi
  use nbfft
  use, intrinsic :: ieee_arithmetic, only: ieee_value, ieee_quiet_nan
  use, intrinsic :: iso_c_binding, only: c_float, c_float_complex
  implicit none
  integer, parameter :: dp = kind(1d0), sp = c_float
  real(dp), parameter :: pi = 3.14159265358979323846_dp
  integer :: rank, nprocs, failures, st
  real(dp) :: nan

  call begin_test()
  nan = ieee_value(1.0_dp, ieee_quiet_nan)

  call single()
  call real_spectrum()
  call mixed()
  call errors()

  call end_test("fortran_nd_kinds")

contains

  include "fortran_nd_reference.inc"

  ! In place along Fortran dimension a of g (extents n): FFTW's REDFT10 (dct2, dst = .false.)
  ! or RODFT10 (dst2), unnormalized: y_k = 2 sum_m x_m cos(pi (m + 1/2) k / n), or
  ! sin(pi (m + 1/2) (k + 1) / n).
  subroutine r2r(g, n, a, dst)
    real(dp), intent(inout) :: g(:)
    integer, intent(in) :: n(:), a
    logical, intent(in) :: dst
    real(dp) :: t(n(a)), w
    integer :: inner, outer, i, j, k, m, base
    inner = product(n(1:a - 1))
    outer = product(n(a + 1:))
    do i = 0, outer - 1
      do j = 0, inner - 1
        base = i * n(a) * inner + j
        do k = 0, n(a) - 1
          t(k + 1) = 0
          do m = 0, n(a) - 1
            w = pi * (m + 0.5_dp) * merge(k + 1, k, dst) / n(a)
            t(k + 1) = t(k + 1) + 2 * g(base + m * inner + 1) * merge(sin(w), cos(w), dst)
          end do
        end do
        do k = 0, n(a) - 1
          g(base + k * inner + 1) = t(k + 1)
        end do
      end do
    end do
  end subroutine

  ! 2-D r2c g(6, 7) in single precision against the double plan.
  subroutine single()
    integer, parameter :: n(2) = [6, 7]
    type(nbfft_nd_plan) :: pd, ps
    type(nbfft_nd_pending) :: pend
    integer :: lo(2), hi(2), olo(2), ohi(2), i
    real(dp), allocatable :: g(:,:), u(:,:)
    real(sp), allocatable :: gs(:,:), us(:,:), fs(:,:,:), vs(:,:,:)
    complex(dp), allocatable :: uh(:,:), gh(:,:)
    complex(sp), allocatable :: uhs(:,:), ghs(:,:), fhs(:,:,:), sps(:,:)
    real(dp) :: scale
    call nbfft_nd_plan_create(pd, MPI_COMM_WORLD, n)
    call nbfft_nd_plan_create(ps, MPI_COMM_WORLD, n, options="precision=single")
    call nbfft_nd_box(ps, NBFFT_LAYOUT_INPUT, lo, hi)
    call nbfft_nd_box(ps, NBFFT_LAYOUT_OUTPUT, olo, ohi)
    g = reshape([(value(i, 0), i = 0, product(n) - 1)], n)
    allocate(gs(n(1), n(2)))
    gs = real(g, sp)
    allocate(u(lo(1):hi(1), lo(2):hi(2)), us(lo(1):hi(1), lo(2):hi(2)))
    allocate(uh(olo(1):ohi(1), olo(2):ohi(2)), uhs(olo(1):ohi(1), olo(2):ohi(2)), sps(olo(1):ohi(1), olo(2):ohi(2)))
    allocate(gh(4, 7), ghs(4, 7))
    u = g(lo(1):hi(1), lo(2):hi(2))
    us = real(nan, sp)
    call nbfft_nd_scatter(ps, NBFFT_LAYOUT_INPUT, gs, us, 0, status=st)
    call expect(st == NBFFT_SUCCESS .and. all(us == gs(lo(1):hi(1), lo(2):hi(2))), "single: scatter real(c_float)")
    uhs = cmplx(nan, nan, sp)
    call nbfft_nd_forward(pd, u, uh)
    call nbfft_nd_forward(ps, us, uhs, status=st)
    scale = maxval(abs(uh))
    call expect(st == NBFFT_SUCCESS .and. count(.not. abs(uhs - uh) <= 1d-5 * scale) == 0, &
                "single: the spectrum is the double plan's to single precision")
    ghs = cmplx(nan, nan, sp)
    call nbfft_nd_gather(pd, NBFFT_LAYOUT_OUTPUT, uh, gh, NBFFT_EVERY_RANK)
    call nbfft_nd_gather(ps, NBFFT_LAYOUT_OUTPUT, uhs, ghs, NBFFT_EVERY_RANK, status=st)
    call expect(st == NBFFT_SUCCESS .and. count(.not. abs(ghs - gh) <= 1d-5 * scale) == 0, &
                "single: gather complex(c_float_complex)")
    ! Two fields (the second twice the first), and split phase, bit for bit the one-field call.
    allocate(fs(lo(1):hi(1), lo(2):hi(2), 2), vs(lo(1):hi(1), lo(2):hi(2), 2), fhs(olo(1):ohi(1), olo(2):ohi(2), 2))
    fs(:, :, 1) = us
    fs(:, :, 2) = 2 * us
    fhs = cmplx(nan, nan, sp)
    call nbfft_nd_forward_many(ps, fs, fhs, status=st)
    call expect(st == NBFFT_SUCCESS .and. all(fhs(:, :, 1) == uhs) .and. all(fhs(:, :, 2) == 2 * uhs), &
                "single: forward_many")
    vs = real(nan, sp)
    call nbfft_nd_backward_many(ps, fhs, vs, status=st)
    call expect(st == NBFFT_SUCCESS .and. count(.not. abs(vs(:, :, 2) - 2 * us) <= 1e-5) == 0, "single: backward_many")
    sps = cmplx(nan, nan, sp)
    call nbfft_nd_forward_start(ps, us, sps, pend, status=st)
    call nbfft_nd_wait(pend)
    call expect(st == NBFFT_SUCCESS .and. all(sps == uhs), "single: forward_start and wait")
    us = real(nan, sp)
    call nbfft_nd_backward(ps, uhs, us, status=st)
    call expect(st == NBFFT_SUCCESS .and. count(.not. abs(us - u) <= 1e-5) == 0, "single: backward")
    call nbfft_nd_plan_destroy(pd)
    call nbfft_nd_plan_destroy(ps)
  end subroutine

  ! 2-D g(5, 7), kinds dct2 along dimension 1 and dst2 along 2: real in, real spectrum.
  subroutine real_spectrum()
    integer, parameter :: n(2) = [5, 7]
    type(nbfft_nd_plan) :: p, ps
    integer :: lo(2), hi(2), olo(2), ohi(2), i, bad
    real(dp), allocatable :: g(:,:), u(:,:), uh(:,:), gh(:,:), ref(:), k1(:), k2(:), v(:,:)
    real(sp), allocatable :: us(:,:), uhs(:,:), vs(:,:)
    call nbfft_nd_plan_create(p, MPI_COMM_WORLD, n, kinds="dct2,dst2", status=st)
    call expect(st == NBFFT_SUCCESS, "kinds dct2,dst2: create")
    call nbfft_nd_box(p, NBFFT_LAYOUT_INPUT, lo, hi)
    call nbfft_nd_box(p, NBFFT_LAYOUT_OUTPUT, olo, ohi)
    g = reshape([(value(i, 0), i = 0, product(n) - 1)], n)
    allocate(u(lo(1):hi(1), lo(2):hi(2)), v(lo(1):hi(1), lo(2):hi(2)), uh(olo(1):ohi(1), olo(2):ohi(2)), gh(5, 7))
    u = g(lo(1):hi(1), lo(2):hi(2))
    uh = nan
    call nbfft_nd_forward(p, u, uh, status=st)
    call expect(st == NBFFT_SUCCESS, "kinds: forward, real to real")
    gh = nan
    call nbfft_nd_gather(p, NBFFT_LAYOUT_OUTPUT, uh, gh, NBFFT_EVERY_RANK)
    ref = reshape(g, [product(n)])
    call r2r(ref, n, 1, .false.)
    call r2r(ref, n, 2, .true.)
    call expect(count(.not. abs(gh - reshape(ref, n)) <= 1d-10 * maxval(abs(ref))) == 0, &
                "kinds: the gathered spectrum is the serial dct2 (dimension 1) x dst2 (dimension 2)")
    v = nan
    call nbfft_nd_backward(p, uh, v)
    call expect(count(.not. abs(v - u) <= 1d-12) == 0, "kinds: backward, real to real")
    allocate(k1(ohi(1) - olo(1) + 1), k2(ohi(2) - olo(2) + 1))
    call nbfft_nd_wavenumbers(p, 1, k1, length=2.0_dp)
    call nbfft_nd_wavenumbers(p, 2, k2, length=3.0_dp)
    bad = 0
    do i = 1, size(k1)
      if (.not. abs(k1(i) - pi / 2 * (olo(1) + i - 2)) <= 1d-12) bad = bad + 1
    end do
    do i = 1, size(k2)
      if (.not. abs(k2(i) - pi / 3 * (olo(2) + i - 1)) <= 1d-12) bad = bad + 1
    end do
    call expect(bad == 0, "kinds: dct2's wavenumbers pi/L k, dst2's pi/L (k + 1)")
    ! The same in single precision: real(c_float) both ways.
    call nbfft_nd_plan_create(ps, MPI_COMM_WORLD, n, options="precision=single", kinds="dct2,dst2")
    allocate(us(lo(1):hi(1), lo(2):hi(2)), vs(lo(1):hi(1), lo(2):hi(2)), uhs(olo(1):ohi(1), olo(2):ohi(2)))
    us = real(u, sp)
    uhs = real(nan, sp)
    call nbfft_nd_forward(ps, us, uhs, status=st)
    call expect(st == NBFFT_SUCCESS .and. count(.not. abs(uhs - uh) <= 1d-5 * maxval(abs(ref))) == 0, &
                "kinds: single precision, real to real")
    vs = real(nan, sp)
    call nbfft_nd_backward(ps, uhs, vs)
    call expect(count(.not. abs(vs - us) <= 1e-5) == 0, "kinds: single precision back")
    call nbfft_nd_plan_destroy(ps)
    call nbfft_nd_plan_destroy(p)
  end subroutine

  ! 3-D g(6, 4, 5) over dimensions 1 (periodic: the r2c one, 4 points) and 3 (dst2).
  subroutine mixed()
    integer, parameter :: n(3) = [6, 4, 5]
    type(nbfft_nd_plan) :: p
    integer :: lo(3), hi(3), olo(3), ohi(3), is(3), os(3), i
    real(dp), allocatable :: g(:,:,:), u(:,:,:), rr(:), k3(:)
    complex(dp), allocatable :: uh(:,:,:), gh(:,:,:), ref(:), refc(:,:,:)
    call nbfft_nd_plan_create(p, MPI_COMM_WORLD, n, axes=[1, 3], kinds="periodic,dst2", status=st)
    call expect(st == NBFFT_SUCCESS, "kinds periodic,dst2: create")
    call nbfft_nd_box(p, NBFFT_LAYOUT_INPUT, lo, hi)
    call nbfft_nd_box(p, NBFFT_LAYOUT_OUTPUT, olo, ohi)
    call nbfft_nd_shape(p, is, os)
    call expect(all(os == [4, 4, 5]), "kinds periodic,dst2: dimension 1 is the r2c one")
    g = reshape([(value(i, 0), i = 0, product(n) - 1)], n)
    allocate(u(lo(1):hi(1), lo(2):hi(2), lo(3):hi(3)), uh(olo(1):ohi(1), olo(2):ohi(2), olo(3):ohi(3)), gh(4, 4, 5))
    u = g(lo(1):hi(1), lo(2):hi(2), lo(3):hi(3))
    uh = cmplx(nan, nan, dp)
    call nbfft_nd_forward(p, u, uh)
    gh = cmplx(nan, nan, dp)
    call nbfft_nd_gather(p, NBFFT_LAYOUT_OUTPUT, uh, gh, NBFFT_EVERY_RANK)
    rr = reshape(g, [product(n)])
    call r2r(rr, n, 3, .true.)
    ref = cmplx(rr, 0, dp)
    call dft(ref, n, 1)
    refc = reshape(ref, n)
    call expect(count(.not. abs(gh - refc(1:4, :, :)) <= 1d-10 * maxval(abs(ref))) == 0, &
                "kinds: the gathered spectrum is the serial DFT (dimension 1) x dst2 (dimension 3)")
    allocate(k3(ohi(3) - olo(3) + 1))
    call nbfft_nd_wavenumbers(p, 3, k3, length=pi)
    call expect(all(abs(k3 - [(real(olo(3) + i, dp), i = 0, size(k3) - 1)]) <= 1d-12), &
                "kinds: dst2's wavenumbers along dimension 3 (length pi: k + 1)")
    call nbfft_nd_plan_destroy(p)
  end subroutine

  subroutine errors()
    type(nbfft_nd_plan) :: p
    integer :: lo(2), hi(2), olo(2), ohi(2)
    real(sp), allocatable :: us(:,:)
    complex(sp), allocatable :: uhs(:,:)
    real(dp), allocatable :: u(:,:)
    complex(dp), allocatable :: uh(:,:)
    call nbfft_nd_plan_create(p, MPI_COMM_WORLD, [6, 7])
    call nbfft_nd_box(p, NBFFT_LAYOUT_INPUT, lo, hi)
    call nbfft_nd_box(p, NBFFT_LAYOUT_OUTPUT, olo, ohi)
    allocate(us(lo(1):hi(1), lo(2):hi(2)), uhs(olo(1):ohi(1), olo(2):ohi(2)))
    us = 1
    call nbfft_nd_forward(p, us, uhs, status=st)
    call expect_error(st, "u is real(c_float) but the plan's input is real(c_double)", "single arrays to a double plan")
    call nbfft_nd_plan_destroy(p)
    call nbfft_nd_plan_create(p, MPI_COMM_WORLD, [5, 7], kinds="dct2,dst2")
    call nbfft_nd_box(p, NBFFT_LAYOUT_INPUT, lo, hi)
    call nbfft_nd_box(p, NBFFT_LAYOUT_OUTPUT, olo, ohi)
    allocate(u(lo(1):hi(1), lo(2):hi(2)), uh(olo(1):ohi(1), olo(2):ohi(2)))
    u = 1
    call nbfft_nd_forward(p, u, uh, status=st)
    call expect_error(st, "uh is complex(c_double_complex) but the plan's output is real(c_double)", &
                      "a complex spectrum to a real-spectrum plan")
    call nbfft_nd_plan_destroy(p)
    call nbfft_nd_plan_create(p, MPI_COMM_WORLD, [5, 7], axes=[2], kinds="dct2,dst2", status=st)
    call expect_error(st, "kinds has 2 entries for 1 axes", "a kinds list of the wrong length")
    call nbfft_nd_plan_create(p, MPI_COMM_WORLD, [5, 7], kinds="dct2,sideways", status=st)
    call expect_error(st, "sideways", "an unknown kind")
  end subroutine
end program fortran_nd_kinds
