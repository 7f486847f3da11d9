%% Random operations on queue: every function of the three APIs, on queues
%% built by the operations themselves (and a few that are not queues).
-module(shape_queue).
-export([main/1]).
m(orig) -> queue; m(mine) -> trace_queue.
main(Steps) ->
    shape_check:run(queue, Steps, queue:new(), fun step/1).
item() -> case rand:uniform(10) of 1 -> 1.0; _ -> rand:uniform(8) end.
pred() -> K = item(), case rand:uniform(12) of 1 -> notfun; 2 -> shape_check:logf(fun(_) -> x end); _ -> shape_check:logf(fun(X) -> X > K end) end.
step(Q0) ->
    Q = case rand:uniform(300) of 1 -> {[1], [2|3]}; 2 -> foo; 3 -> queue:new(); 4 -> queue:from_list(lists:seq(1, rand:uniform(20))); _ -> Q0 end,
    X = item(), P = pred(), N = rand:uniform(8) - 2,
    Ops = [
      {in, fun(W) -> (m(W)):in(X, Q) end}, {in, fun(W) -> (m(W)):in(X, Q) end},{in, fun(W) -> (m(W)):in(X, Q) end},
      {in_r, fun(W) -> (m(W)):in_r(X, Q) end}, {in_r, fun(W) -> (m(W)):in_r(X, Q) end},
      {out, fun(W) -> element(2, (m(W)):out(Q)) end}, {out, fun(W) -> (m(W)):out(Q) end}, {out_r, fun(W) -> (m(W)):out_r(Q) end},
      {new, fun(W) -> (m(W)):new() end},
      {is_queue, fun(W) -> (m(W)):is_queue(Q) end}, {is_empty, fun(W) -> (m(W)):is_empty(Q) end},
      {len, fun(W) -> (m(W)):len(Q) end}, {to_list, fun(W) -> (m(W)):to_list(Q) end},
      {from_list, fun(W) -> (m(W)):from_list(lists:seq(1, N + 2)) end},
      {member, fun(W) -> (m(W)):member(X, Q) end},
      {get, fun(W) -> (m(W)):get(Q) end}, {get_r, fun(W) -> (m(W)):get_r(Q) end},
      {peek, fun(W) -> (m(W)):peek(Q) end}, {peek_r, fun(W) -> (m(W)):peek_r(Q) end},
      {drop, fun(W) -> (m(W)):drop(Q) end}, {drop_r, fun(W) -> (m(W)):drop_r(Q) end},
      {reverse, fun(W) -> (m(W)):reverse(Q) end},
      {join, fun(W) -> (m(W)):join(Q, queue:from_list(lists:seq(10, 10 + N))) end},
      {join2, fun(W) -> (m(W)):join(queue:from_list(lists:seq(10, 10 + N)), Q) end},
      {split, fun(W) -> element(1 + (X rem 2), (m(W)):split(N, Q)) end},
      {filter, fun(W) -> (m(W)):filter(P, Q) end},
      {filter_l, fun(W) -> (m(W)):filter(shape_check:logf(fun(Y) when Y > X -> [Y, Y]; (Y) -> Y rem 2 =:= 0 end), Q) end},
      {filtermap, fun(W) -> (m(W)):filtermap(shape_check:logf(fun(Y) when Y > X -> {true, Y * 10}; (Y) -> Y rem 2 =:= 0 end), Q) end},
      {fold, fun(W) -> (m(W)):fold(shape_check:logf2(fun(Y, A) -> [Y | A] end), [], Q) end},
      {any, fun(W) -> (m(W)):any(P, Q) end}, {all, fun(W) -> (m(W)):all(P, Q) end},
      {delete, fun(W) -> (m(W)):delete(X, Q) end}, {delete_r, fun(W) -> (m(W)):delete_r(X, Q) end},
      {delete_with, fun(W) -> (m(W)):delete_with(P, Q) end}, {delete_with_r, fun(W) -> (m(W)):delete_with_r(P, Q) end},
      {cons, fun(W) -> (m(W)):cons(X, Q) end}, {head, fun(W) -> (m(W)):head(Q) end}, {tail, fun(W) -> (m(W)):tail(Q) end},
      {snoc, fun(W) -> (m(W)):snoc(Q, X) end}, {daeh, fun(W) -> (m(W)):daeh(Q) end}, {last, fun(W) -> (m(W)):last(Q) end},
      {liat, fun(W) -> (m(W)):liat(Q) end}, {init, fun(W) -> (m(W)):init(Q) end}, {lait, fun(W) -> (m(W)):lait(Q) end}
    ],
    {Name, F} = lists:nth(rand:uniform(length(Ops)), Ops),
    {{Name, X, N, Q}, F, fun({ok, {_, _} = R}, _) -> case catch (queue:is_queue(R) andalso queue:len(R) < 40) of true -> R; _ -> Q end; (_, _) -> Q end}.
