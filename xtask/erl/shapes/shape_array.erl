%% Random operations on array: arrays that grow and fixed ones, resizing,
%% sparse functions and from_orddict's gaps. (A fixed array shrunk and grown
%% again is left out: BEAM's tree is inconsistent then, see docs/library.md.)
-module(shape_array).
-export([main/1]).
m(orig) -> array; m(mine) -> trace_array.
main(Steps) ->
    shape_check:run(array, Steps, array:new(), fun step/1).
idx() -> case rand:uniform(30) of 1 -> -1; 2 -> a; 3 -> 1.0; 4 -> rand:uniform(3000); _ -> rand:uniform(rand:uniform(300)) - 1 end.
val() -> case rand:uniform(6) of 1 -> undefined; 2 -> 0; _ -> rand:uniform(50) end.
opts() -> lists:nth(rand:uniform(14), [[], [fixed], [{fixed, false}], [{default, 0}], {default, 0}, 5, [{size, 25}], [{size, 25}, {fixed, false}],
   [{fixed, false}, {size, 25}], foo, [foo], [{size, -1}], [{fixed, x}], [{default, 0}, {size, 105}, fixed]]).
step(T0) ->
    T = case rand:uniform(300) of 1 -> foo; 2 -> array:new(); 3 -> array:from_list(lists:seq(1, rand:uniform(300))); 4 -> array:new(rand:uniform(200)); 5 -> array:new([{default, 0}]); _ -> T0 end,
    I = idx(), V = val(), O = opts(), N = rand:uniform(250) - 1,
    L = case rand:uniform(20) of 1 -> [a|b]; 2 -> b; _ -> [val() || _ <- lists:seq(1, rand:uniform(rand:uniform(250)) - 1)] end,
    OD = case rand:uniform(10) of 1 -> [{3, x}, {1, y}]; 2 -> [{-1, x}]; 3 -> [{1, x}, {1, y}]; 4 -> [a]; 5 -> [{a, b}]; 6 -> [{1, x} | y]; _ -> orddict:from_list([{rand:uniform(rand:uniform(300)) - 1, val()} || _ <- lists:seq(1, rand:uniform(30) - 1)]) end,
    Ops = [
      {new, fun(W) -> (m(W)):new() end}, {new1, fun(W) -> (m(W)):new(O) end}, {new2, fun(W) -> (m(W)):new(N, O) end},
      {new2bad, fun(W) -> (m(W)):new(a, O) end},
      {is_array, fun(W) -> (m(W)):is_array(T) end}, {size, fun(W) -> (m(W)):size(T) end}, {default, fun(W) -> (m(W)):default(T) end},
      {fix, fun(W) -> (m(W)):fix(T) end}, {is_fix, fun(W) -> (m(W)):is_fix(T) end}, {relax, fun(W) -> (m(W)):relax(T) end},
      {resize, fun(W) -> (m(W)):resize(N, T) end}, {resize1, fun(W) -> (m(W)):resize(T) end}, {resize_bad, fun(W) -> (m(W)):resize(I, T) end},
      {set, fun(W) -> (m(W)):set(I, V, T) end}, {set, fun(W) -> (m(W)):set(I, V, T) end}, {set, fun(W) -> (m(W)):set(I, V, T) end},
      {get, fun(W) -> (m(W)):get(I, T) end}, {get, fun(W) -> (m(W)):get(I, T) end},
      {reset, fun(W) -> (m(W)):reset(I, T) end},
      {to_list, fun(W) -> (m(W)):to_list(T) end}, {sparse_to_list, fun(W) -> (m(W)):sparse_to_list(T) end},
      {to_orddict, fun(W) -> (m(W)):to_orddict(T) end}, {sparse_to_orddict, fun(W) -> (m(W)):sparse_to_orddict(T) end},
      {from_list, fun(W) -> (m(W)):from_list(L) end}, {from_list2, fun(W) -> (m(W)):from_list(L, 0) end},
      {from_orddict, fun(W) -> (m(W)):from_orddict(OD) end}, {from_orddict2, fun(W) -> (m(W)):from_orddict(OD, 0) end},
      {sparse_size, fun(W) -> (m(W)):sparse_size(T) end},
      {map, fun(W) -> (m(W)):map(fun(A, B) -> shape_check:log({A, B}), {B} end, T) end},
      {sparse_map, fun(W) -> (m(W)):sparse_map(fun(A, B) -> shape_check:log({A, B}), {B} end, T) end},
      {map_bad, fun(W) -> (m(W)):map(x, T) end}, {sparse_map_bad, fun(W) -> (m(W)):sparse_map(fun(_) -> x end, T) end},
      {foldl, fun(W) -> (m(W)):foldl(fun(A, B, C) -> shape_check:log({A, B}), C + 1 end, 0, T) end},
      {foldr, fun(W) -> (m(W)):foldr(fun(A, B, C) -> shape_check:log({A, B}), C + 1 end, 0, T) end},
      {sparse_foldl, fun(W) -> (m(W)):sparse_foldl(fun(A, B, C) -> shape_check:log({A, B}), C + 1 end, 0, T) end},
      {sparse_foldr, fun(W) -> (m(W)):sparse_foldr(fun(A, B, C) -> shape_check:log({A, B}), C + 1 end, 0, T) end},
      {foldl_bad, fun(W) -> (m(W)):foldl(x, 0, T) end}, {sparse_foldr_bad, fun(W) -> (m(W)):sparse_foldr(x, 0, T) end}
    ],
    {Name, F} = case ok(T) of true -> lists:nth(rand:uniform(length(Ops)), Ops); false -> {new, fun(W) -> (m(W)):new() end} end,
    {{Name, I, V, O, N, T}, F, fun({ok, R}, _) when element(1, R) =:= array, element(2, R) < 3000 -> case ok(R) of true -> R; false -> T end; (_, _) -> T end}.
ok({array, _, _, _, E}) -> cap(E) =/= bad; ok(_) -> true.
cap(E) when is_integer(E) -> E;
cap(E) when tuple_size(E) =:= 10 -> 10;
cap(E) -> C = element(11, E), case lists:all(fun(X) -> cap(X) =:= C end, lists:sublist(tuple_to_list(E), 10)) of true -> 10 * C; false -> bad end.
