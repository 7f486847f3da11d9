%% Floats: an n-body style simulation step loop over tuples of floats, and
%% a Mandelbrot count; float arithmetic, tuples and calls.
-module(floats_bench).
-export([main/0]).

main() ->
    Bodies = [{float(I), float(I * 2), float(-I), 0.01 * I, 0.0, 0.001 * I, 1.0 + I / 10} || I <- lists:seq(1, 5)],
    Final = steps(20000, Bodies),
    E = energy(Final),
    M = mandel(120, 120, 0),
    io:format("~.6f ~p~n", [E, M]).

steps(0, Bs) -> Bs;
steps(N, Bs) -> steps(N - 1, move(advance(Bs, Bs), 0.01)).

advance([], _) -> [];
advance([{X, Y, Z, Vx, Vy, Vz, M} | T], All) ->
    {Ax, Ay, Az} = accel(X, Y, Z, All, 0.0, 0.0, 0.0),
    [{X, Y, Z, Vx + Ax * 0.01, Vy + Ay * 0.01, Vz + Az * 0.01, M} | advance(T, All)].

accel(_, _, _, [], Ax, Ay, Az) -> {Ax, Ay, Az};
accel(X, Y, Z, [{X2, Y2, Z2, _, _, _, M} | T], Ax, Ay, Az) ->
    Dx = X2 - X, Dy = Y2 - Y, Dz = Z2 - Z,
    D2 = Dx * Dx + Dy * Dy + Dz * Dz + 0.01,
    F = M / (D2 * math:sqrt(D2)),
    accel(X, Y, Z, T, Ax + Dx * F, Ay + Dy * F, Az + Dz * F).

move(Bs, Dt) -> [{X + Vx * Dt, Y + Vy * Dt, Z + Vz * Dt, Vx, Vy, Vz, M} || {X, Y, Z, Vx, Vy, Vz, M} <- Bs].

energy(Bs) -> lists:sum([0.5 * M * (Vx * Vx + Vy * Vy + Vz * Vz) || {_, _, _, Vx, Vy, Vz, M} <- Bs]).

mandel(0, _, Acc) -> Acc;
mandel(Row, Cols, Acc) -> mandel(Row - 1, Cols, Acc + row(Row, Cols, 0)).

row(_, 0, Acc) -> Acc;
row(R, C, Acc) ->
    Cr = C / 40 - 2.0, Ci = R / 60 - 1.0,
    row(R, C - 1, Acc + iter(0.0, 0.0, Cr, Ci, 0)).

iter(_, _, _, _, 100) -> 1;
iter(Zr, Zi, Cr, Ci, N) ->
    case Zr * Zr + Zi * Zi > 4.0 of
        true -> 0;
        false -> iter(Zr * Zr - Zi * Zi + Cr, 2.0 * Zr * Zi + Ci, Cr, Ci, N + 1)
    end.
