%% fixtures/papers/cfib.erl with its bug fixed (add adds): the good run for
%% the good-run oracle.
-module(cfib).
-export([main/0, cfib/2]).

main() ->
    lists:foreach(
      fun(N) ->
              spawn(?MODULE, cfib, [N, self()]),
              receive R -> io:format("cfib(~p) = ~p~n", [N, R]) end
      end, [0, 1, 2, 3, 4, 5, 6, 7]).

cfib(0, Parent) -> Parent ! 0;
cfib(1, Parent) -> Parent ! 1;
cfib(N, Parent) ->
    Self = self(),
    spawn(?MODULE, cfib, [N - 1, Self]),
    spawn(?MODULE, cfib, [N - 2, Self]),
    receive
        A -> receive B -> Parent ! add(A, B) end
    end.

add(X, Y) -> X + Y.
