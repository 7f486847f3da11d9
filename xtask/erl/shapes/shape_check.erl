%% Runs random operations on one of OTP's modules and on the prelude's
%% version of it (compiled as trace_MODULE) and compares, step by step,
%% what each returns (the data structure itself included, so its internal
%% shape), the class and reason of each exception, and the calls made to
%% the funs passed in (logged in the process dictionary).
%%
%% A harness gives a step function: State -> {Description, Fun, Next},
%% where Fun(orig | mine) runs the operation on OTP's module or the
%% prelude's, and Next(Result, State) is the next state.
-module(shape_check).
-export([run/4, log/1, logf/1, logf2/1]).

run(Name, Steps, State, Step) ->
    rand:seed(exsss, {1, 2, 3}),
    loop(Name, Steps, State, Step, 0).

loop(Name, 0, _, _, Bad) ->
    io:format("~p: ~p mismatches~n", [Name, Bad]),
    Bad;
loop(Name, _, _, _, Bad) when Bad >= 5 ->
    io:format("~p: stopped after ~p mismatches~n", [Name, Bad]),
    Bad;
loop(Name, N, State, Step, Bad) ->
    {Desc, F, Next} = Step(State),
    Orig = call(F, orig),
    Mine = call(F, mine),
    Bad1 = case Orig =:= Mine of
               true -> Bad;
               false ->
                   {R1, L1} = Orig,
                   {R2, L2} = Mine,
                   io:format("MISMATCH ~P~n  otp   ~P ~P~n  trace ~P ~P~n",
                             [Desc, 30, R1, 40, L1, 20, R2, 40, L2, 20]),
                   Bad + 1
           end,
    loop(Name, N - 1, Next(element(1, Orig), State), Step, Bad1).

call(F, Which) ->
    put(shape_log, []),
    R = try {ok, F(Which)} catch C:E -> {C, E} end,
    {R, lists:reverse(get(shape_log))}.

log(X) -> put(shape_log, [X | get(shape_log)]).

logf(F) -> fun(X) -> log(X), F(X) end.

logf2(F) -> fun(X, A) -> log({X, A}), F(X, A) end.
