%% Dining philosophers after CauDEr's case study (seed 003 §4.4.2): a waiter
%% hands out forks. A hungry philosopher asks the waiter; the waiter asks both
%% forks for their state and, when both are free, marks them used and says
%% eat, else think. After eating the philosopher says so and the waiter frees
%% the forks. Each philosopher eats MEALS times (or gives up after PATIENCE
%% refusals), so the run ends. This is the correct version: replies are
%% tagged and received selectively.
-module(dining).
-export([main/0, waiter/0, fork/1, philo/3]).

-define(N, 5).
-define(MEALS, 2).
-define(PATIENCE, 40).

main() ->
    spawn(?MODULE, waiter, []).

waiter() ->
    Forks = spawn_forks(?N, []),
    Philos = spawn_philos(?N, [], self()),
    serve(Forks, Philos, ?N),
    [F ! stop || {_, F} <- Forks],
    ok.

spawn_forks(0, Forks) -> Forks;
spawn_forks(N, Forks) -> spawn_forks(N - 1, [{N, spawn(?MODULE, fork, [free])} | Forks]).

spawn_philos(0, Philos, _) -> Philos;
spawn_philos(N, Philos, W) ->
    spawn_philos(N - 1, [{spawn(?MODULE, philo, [W, N, ?MEALS]), N} | Philos], W).

serve(_, _, 0) ->
    ok;
serve(Forks, Philos, Left) ->
    receive
        {eaten, P} ->
            {L, R} = forks_of(P, Forks, Philos),
            set_state(L, free),
            set_state(R, free),
            serve(Forks, Philos, Left);
        {hungry, P} ->
            {L, R} = forks_of(P, Forks, Philos),
            case {ask_state(L), ask_state(R)} of
                {free, free} ->
                    set_state(L, used),
                    set_state(R, used),
                    P ! eat;
                _ ->
                    P ! think
            end,
            serve(Forks, Philos, Left);
        {done, _} ->
            serve(Forks, Philos, Left - 1)
    end.

forks_of(P, Forks, Philos) ->
    Id = lookup(P, Philos),
    Right = 1 + (Id rem ?N),
    {lookup(Id, Forks), lookup(Right, Forks)}.

lookup(K, [{K, V} | _]) -> V;
lookup(K, [_ | T]) -> lookup(K, T).

ask_state(F) ->
    F ! {get_state, self()},
    receive
        {state, S, F} -> S
    end.

set_state(F, S) ->
    F ! {set_state, S, self()},
    receive
        {been_set, F} -> ok
    end.

philo(W, _Id, 0) ->
    W ! {done, self()};
philo(W, Id, Meals) ->
    hungry(W, Id, Meals, ?PATIENCE).

hungry(W, _Id, _Meals, 0) ->
    W ! {done, self()};
hungry(W, Id, Meals, Patience) ->
    W ! {hungry, self()},
    receive
        think -> hungry(W, Id, Meals, Patience - 1);
        eat -> W ! {eaten, self()}, philo(W, Id, Meals - 1)
    end.

fork(State) ->
    receive
        {get_state, W} -> W ! {state, State, self()}, fork(State);
        {set_state, S, W} -> W ! {been_set, self()}, fork(S);
        stop -> ok
    end.
