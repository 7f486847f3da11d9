%% gen_statem: the generic state machine behaviour, written from OTP 25's
%% documentation. Both callback modes (state_functions and
%% handle_event_function), state enter calls, and every transition action:
%% postpone, next_event, reply, hibernate, and the event, state and generic
%% time-outs with their cancel and update forms. Requests are OTP's
%% messages ({'$gen_call', From, Request}, {'$gen_cast', Msg}, {system,
%% From, Request}); a time-out runs as erlang:start_timer/4, whose message
%% {timeout, TRef, Type} becomes the time-out event, and a cancelled
%% timer's message is flushed, so a cancelled time-out never fires.
-module(gen_statem).
-export([start/3, start/4, start_link/3, start_link/4, start_monitor/3,
         start_monitor/4, stop/1, stop/3, call/2, call/3, cast/2, reply/1,
         reply/2, send_request/2, wait_response/2, receive_response/2,
         check_response/2, enter_loop/4, enter_loop/5, enter_loop/6]).
-export([init_it/6, wake_hib/1, system_continue/3, system_terminate/4,
         system_code_change/4, system_get_state/1, system_replace_state/2,
         format_status/2, format_log/1, format_log/2]).

-record(s, {parent, name, module, mode, enter = false, state, data,
            postponed = [],     % newest first
            timers = #{},       % Type => {TRef | zero, Content}
            zeros = [],         % types of the zero time-outs, oldest first
            queue = [],         % events to handle before the mailbox
            hibernate_after = infinity}).

%%% API

start(Mod, Args, Opts) -> gen:start(?MODULE, nolink, Mod, Args, Opts).
start(Name, Mod, Args, Opts) ->
    gen:start(?MODULE, nolink, Name, Mod, Args, Opts).
start_link(Mod, Args, Opts) -> gen:start(?MODULE, link, Mod, Args, Opts).
start_link(Name, Mod, Args, Opts) ->
    gen:start(?MODULE, link, Name, Mod, Args, Opts).
start_monitor(Mod, Args, Opts) ->
    gen:start(?MODULE, monitor, Mod, Args, Opts).
start_monitor(Name, Mod, Args, Opts) ->
    gen:start(?MODULE, monitor, Name, Mod, Args, Opts).

stop(Server) -> gen:stop(Server).
stop(Server, Reason, Timeout) -> gen:stop(Server, Reason, Timeout).

call(Server, Request) -> call(Server, Request, infinity).

call(Server, Request, Timeout) ->
    T = case Timeout of
            {dirty_timeout, T0} -> T0;
            {clean_timeout, T0} -> T0;
            T0 -> T0
        end,
    try gen:call(Server, '$gen_call', Request, T) of
        {ok, Reply} -> Reply
    catch
        exit:Reason ->
            exit({Reason, {?MODULE, call, [Server, Request, Timeout]}})
    end.

cast(Server, Msg) -> gen_server:cast(Server, Msg).

reply({reply, From, Reply}) -> reply(From, Reply);
reply(Replies) when is_list(Replies) -> lists:foreach(fun reply/1, Replies).

reply(From, Reply) -> gen:reply(From, Reply).

send_request(Server, Request) ->
    gen:send_request(Server, '$gen_call', Request).
wait_response(ReqId, Timeout) -> gen:wait_response(ReqId, Timeout).
receive_response(ReqId, Timeout) -> gen:receive_response(ReqId, Timeout).
check_response(Msg, ReqId) -> gen:check_response(Msg, ReqId).

enter_loop(Mod, Opts, State, Data) ->
    enter_loop(Mod, Opts, State, Data, self()).

enter_loop(Mod, Opts, State, Data, Server) when is_pid(Server); is_tuple(Server) ->
    enter_loop(Mod, Opts, State, Data, Server, []);
enter_loop(Mod, Opts, State, Data, Actions) ->
    enter_loop(Mod, Opts, State, Data, self(), Actions).

enter_loop(Mod, Opts, State, Data, Server, Actions) ->
    Name = gen:get_proc_name(Server),
    Parent = gen:get_parent(),
    S = #s{parent = Parent, name = Name, module = Mod, state = State,
           data = Data, hibernate_after = gen:hibernate_after(Opts)},
    start_machine(S, listify(Actions)).

%%% Starting

init_it(Starter, self, Name, Mod, Args, Opts) ->
    init_it(Starter, self(), Name, Mod, Args, Opts);
init_it(Starter, Parent, Name0, Mod, Args, Opts) ->
    Name = gen:name(Name0),
    S0 = #s{parent = Parent, name = Name, module = Mod,
            hibernate_after = gen:hibernate_after(Opts)},
    try Mod:init(Args) of
        Result -> init_result(Starter, Name0, S0, Result)
    catch
        throw:Result -> init_result(Starter, Name0, S0, Result);
        Class:Reason:Stack ->
            gen:unregister_name(Name0),
            proc_lib:init_ack(Starter, {error, Reason}),
            erlang:raise(Class, Reason, Stack)
    end.

init_result(Starter, Name0, S0, Result) ->
    case Result of
        {ok, State, Data} ->
            proc_lib:init_ack(Starter, {ok, self()}),
            start_machine(S0#s{state = State, data = Data}, []);
        {ok, State, Data, Actions} ->
            proc_lib:init_ack(Starter, {ok, self()}),
            start_machine(S0#s{state = State, data = Data}, listify(Actions));
        {stop, Reason} ->
            gen:unregister_name(Name0),
            proc_lib:init_ack(Starter, {error, Reason}),
            exit(Reason);
        ignore ->
            gen:unregister_name(Name0),
            proc_lib:init_ack(Starter, ignore),
            exit(normal);
        _ ->
            gen:unregister_name(Name0),
            Error = {bad_return_from_init, Result},
            proc_lib:init_ack(Starter, {error, Error}),
            exit(Error)
    end.

%% The initial state is entered like any other: its enter call (if any)
%% comes first, then the init actions.
start_machine(S0, Actions) ->
    S = callback_mode(S0),
    transition(S, {internal, init_state}, S#s.state, S#s.data, Actions,
               true, init).

callback_mode(#s{module = Mod} = S) ->
    CM = try Mod:callback_mode()
         catch throw:R -> R;
               Class:Reason:Stack ->
                   terminate(Class, Reason, Stack, S, undefined)
         end,
    case parse_callback_mode(listify(CM), undefined, false) of
        {ok, Mode, Enter} -> S#s{mode = Mode, enter = Enter};
        error ->
            terminate(error, {bad_callback_mode, CM}, [], S, undefined)
    end.

parse_callback_mode([], undefined, _) -> error;
parse_callback_mode([], Mode, Enter) -> {ok, Mode, Enter};
parse_callback_mode([state_enter | T], Mode, _) ->
    parse_callback_mode(T, Mode, true);
parse_callback_mode([M | T], undefined, Enter)
  when M =:= state_functions; M =:= handle_event_function ->
    parse_callback_mode(T, M, Enter);
parse_callback_mode(_, _, _) -> error.

listify(L) when is_list(L) -> L;
listify(X) -> [X].

%%% The loop

%% Queued events first (inserted and postponed ones), then zero time-outs
%% in the order they were set, then the mailbox.
loop(#s{queue = [Event | Rest]} = S) ->
    handle_event(Event, S#s{queue = Rest});
loop(#s{zeros = [Type | Rest], timers = Timers} = S) ->
    #{Type := {zero, Content}} = Timers,
    handle_event({timeout_type(Type), Content},
                 S#s{zeros = Rest, timers = maps:remove(Type, Timers)});
loop(#s{hibernate_after = HA} = S) ->
    receive
        Msg -> decode_msg(Msg, S)
    after HA ->
            hibernate(S)
    end.

hibernate(S) ->
    proc_lib:hibernate(?MODULE, wake_hib, [S]).

wake_hib(S) ->
    receive Msg -> decode_msg(Msg, S) end.

decode_msg(Msg, #s{parent = Parent} = S) ->
    case Msg of
        {system, From, Req} ->
            sys:handle_system_msg(Req, From, Parent, ?MODULE, [], S, false);
        {'EXIT', Parent, Reason} ->
            terminate(exit, Reason, [], S, {info, Msg});
        {timeout, TRef, Type} ->
            case timer_of(TRef, S#s.timers) of
                {ok, Type, Content} ->
                    Timers = maps:remove(Type, S#s.timers),
                    handle_event({timeout_type(Type), Content},
                                 S#s{timers = Timers});
                _ ->
                    handle_event({info, Msg}, S)
            end;
        {'$gen_call', From, Request} ->
            handle_event({{call, From}, Request}, S);
        {'$gen_cast', Request} ->
            handle_event({cast, Request}, S);
        _ ->
            handle_event({info, Msg}, S)
    end.

timeout_type(timeout) -> timeout;
timeout_type(state_timeout) -> state_timeout;
timeout_type({timeout, Name}) -> {timeout, Name}.

timer_of(TRef, Timers) ->
    case [{Type, C} || {Type, {R, C}} <- maps:to_list(Timers), R =:= TRef] of
        [{Type, C}] -> {ok, Type, C};
        [] -> error
    end.

%% Any event cancels the event time-out.
handle_event({Type, Content} = Event, S0) ->
    S = case Type of
            timeout -> S0;
            _ -> cancel_timer(timeout, S0)
        end,
    Result = call_state_function(S, Type, Content),
    handle_result(Result, Event, S).

call_state_function(#s{module = Mod, mode = state_functions, state = State,
                       data = Data} = S, Type, Content) ->
    try Mod:State(Type, Content, Data)
    catch
        throw:R -> R;
        Class:Reason:Stack ->
            terminate(Class, Reason, Stack, S, {Type, Content})
    end;
call_state_function(#s{module = Mod, mode = handle_event_function,
                       state = State, data = Data} = S, Type, Content) ->
    try Mod:handle_event(Type, Content, State, Data)
    catch
        throw:R -> R;
        Class:Reason:Stack ->
            terminate(Class, Reason, Stack, S, {Type, Content})
    end.

handle_result(Result, Event, #s{state = State, data = Data} = S) ->
    case Result of
        {next_state, NextState, NewData} ->
            transition(S, Event, NextState, NewData, [], false, event);
        {next_state, NextState, NewData, Actions} ->
            transition(S, Event, NextState, NewData, listify(Actions), false,
                       event);
        {keep_state, NewData} ->
            transition(S, Event, State, NewData, [], false, event);
        {keep_state, NewData, Actions} ->
            transition(S, Event, State, NewData, listify(Actions), false,
                       event);
        keep_state_and_data ->
            transition(S, Event, State, Data, [], false, event);
        {keep_state_and_data, Actions} ->
            transition(S, Event, State, Data, listify(Actions), false, event);
        {repeat_state, NewData} ->
            transition(S, Event, State, NewData, [], true, event);
        {repeat_state, NewData, Actions} ->
            transition(S, Event, State, NewData, listify(Actions), true,
                       event);
        repeat_state_and_data ->
            transition(S, Event, State, Data, [], true, event);
        {repeat_state_and_data, Actions} ->
            transition(S, Event, State, Data, listify(Actions), true, event);
        {stop, Reason} ->
            terminate(exit, Reason, [], S, Event);
        {stop, Reason, NewData} ->
            terminate(exit, Reason, [], S#s{data = NewData}, Event);
        {stop_and_reply, Reason, Replies} ->
            reply_all(listify(Replies), S, Event),
            terminate(exit, Reason, [], S, Event);
        {stop_and_reply, Reason, Replies, NewData} ->
            reply_all(listify(Replies), S, Event),
            terminate(exit, Reason, [], S#s{data = NewData}, Event);
        _ ->
            terminate(error, {bad_return_from_state_function, Result}, [], S,
                      Event)
    end.

reply_all(Replies, S, Event) ->
    lists:foreach(fun({reply, From, Reply}) -> reply(From, Reply);
                     (Bad) ->
                          terminate(error,
                                    {bad_action_from_state_function, Bad}, [],
                                    S, Event)
                  end, Replies).

%% A state transition (the steps OTP documents): the actions in order
%% (replies go out at once), then the enter call of a new (or repeated)
%% state, whose actions count as appended; postponed events come back
%% after a state change; inserted events go first; then the time-outs.
transition(S0, Event, NextState, NewData, Actions, Repeat, Why) ->
    OldState = S0#s.state,
    Acc0 = #{postpone => false, next => [], hibernate => false,
             timeouts => []},
    Acc1 = actions(Actions, Acc0, S0, Event, false),
    Changed = NextState =/= OldState orelse Why =:= init,
    S1 = S0#s{state = NextState, data = NewData},
    {S2, Acc} = case S1#s.enter andalso (Changed orelse Repeat) of
                    true -> enter_call(S1, OldState, Acc1, Event);
                    false -> {S1, Acc1}
                end,
    Postponed = case maps:get(postpone, Acc) of
                    true when Why =:= event -> [Event | S2#s.postponed];
                    _ -> S2#s.postponed
                end,
    Next = lists:reverse(maps:get(next, Acc)),
    %% Inserted events go before everything queued, the retried postponed
    %% ones included.
    S3 = case NextState =/= OldState of
             true ->
                 S2#s{queue = Next ++ lists:reverse(Postponed) ++ S2#s.queue,
                      postponed = []};
             false ->
                 S2#s{queue = Next ++ S2#s.queue, postponed = Postponed}
         end,
    S4 = timeouts(lists:reverse(maps:get(timeouts, Acc)),
                  NextState =/= OldState, S3),
    case maps:get(hibernate, Acc) of
        true -> hibernate(S4);
        false -> loop(S4)
    end.

enter_call(#s{module = Mod, mode = Mode, state = State, data = Data} = S,
           OldState, Acc, Event) ->
    Result = try
                 case Mode of
                     state_functions -> Mod:State(enter, OldState, Data);
                     handle_event_function ->
                         Mod:handle_event(enter, OldState, State, Data)
                 end
             catch
                 throw:R -> R;
                 C:E:ST -> terminate(C, E, ST, S, Event)
             end,
    Bad = fun() ->
                  terminate(error,
                            {bad_state_enter_return_from_state_function,
                             Result}, [], S, Event)
          end,
    {NewData, Actions, Repeat} =
        case Result of
            {next_state, State, D} -> {D, [], false};
            {next_state, State, D, A} -> {D, listify(A), false};
            {keep_state, D} -> {D, [], false};
            {keep_state, D, A} -> {D, listify(A), false};
            keep_state_and_data -> {Data, [], false};
            {keep_state_and_data, A} -> {Data, listify(A), false};
            {repeat_state, D} -> {D, [], true};
            {repeat_state, D, A} -> {D, listify(A), true};
            repeat_state_and_data -> {Data, [], true};
            {repeat_state_and_data, A} -> {Data, listify(A), true};
            {stop, Reason} -> terminate(exit, Reason, [], S, Event);
            {stop, Reason, D} ->
                terminate(exit, Reason, [], S#s{data = D}, Event);
            {stop_and_reply, Reason, Replies} ->
                reply_all(listify(Replies), S, Event),
                terminate(exit, Reason, [], S, Event);
            {stop_and_reply, Reason, Replies, D} ->
                reply_all(listify(Replies), S, Event),
                terminate(exit, Reason, [], S#s{data = D}, Event);
            _ -> Bad()
        end,
    Acc1 = actions(Actions, Acc, S, Event, true),
    S1 = S#s{data = NewData},
    case Repeat of
        true -> enter_call(S1, OldState, Acc1, Event);
        false -> {S1, Acc1}
    end.

%% Transition actions; an enter call may not postpone or insert events.
actions([], Acc, _S, _Event, _Enter) -> Acc;
actions([A | Rest], Acc, S, Event, Enter) ->
    actions(Rest, action(A, Acc, S, Event, Enter), S, Event, Enter).

action(postpone, Acc, S, Event, Enter) ->
    action({postpone, true}, Acc, S, Event, Enter);
action({postpone, P} = A, Acc, S, Event, Enter) when is_boolean(P) ->
    case Enter of
        true -> bad_enter_action(A, S, Event);
        false -> Acc#{postpone := P}
    end;
action({next_event, Type, Content} = A, Acc, S, Event, Enter) ->
    case Enter orelse not event_type(Type) of
        true -> bad_action(A, S, Event, Enter);
        false -> Acc#{next := [{Type, Content} | maps:get(next, Acc)]}
    end;
action(hibernate, Acc, S, Event, Enter) ->
    action({hibernate, true}, Acc, S, Event, Enter);
action({hibernate, H}, Acc, _S, _Event, _Enter) when is_boolean(H) ->
    Acc#{hibernate := H};
action({reply, From, Reply}, Acc, _S, _Event, _Enter) ->
    reply(From, Reply),
    Acc;
action(Time, Acc, S, Event, Enter)
  when Time =:= infinity; is_integer(Time), Time >= 0 ->
    action({timeout, Time, Time}, Acc, S, Event, Enter);
action(A, Acc, S, Event, Enter) ->
    case timeout_action(A) of
        {ok, T} -> Acc#{timeouts := [T | maps:get(timeouts, Acc)]};
        error -> bad_action(A, S, Event, Enter)
    end.

bad_action(A, S, Event, true) -> bad_enter_action(A, S, Event);
bad_action(A, S, Event, false) ->
    terminate(error, {bad_action_from_state_function, A}, [], S, Event).

bad_enter_action(A, S, Event) ->
    terminate(error, {bad_state_enter_action_from_state_function, A}, [], S,
              Event).

event_type({call, {Pid, _}}) when is_pid(Pid) -> true;
event_type(cast) -> true;
event_type(info) -> true;
event_type(timeout) -> true;
event_type(state_timeout) -> true;
event_type(internal) -> true;
event_type({timeout, _}) -> true;
event_type(_) -> false.

%% {Type, Op}: Op is {start, Time, Content, Abs}, cancel or {update, C}.
timeout_action({timeout, cancel}) -> {ok, {timeout, cancel}};
timeout_action({timeout, update, C}) -> {ok, {timeout, {update, C}}};
timeout_action({timeout, Time, C}) -> start_action(timeout, Time, C, []);
timeout_action({timeout, Time, C, Opts}) -> start_action(timeout, Time, C, Opts);
timeout_action({state_timeout, cancel}) -> {ok, {state_timeout, cancel}};
timeout_action({state_timeout, update, C}) ->
    {ok, {state_timeout, {update, C}}};
timeout_action({state_timeout, Time, C}) ->
    start_action(state_timeout, Time, C, []);
timeout_action({state_timeout, Time, C, Opts}) ->
    start_action(state_timeout, Time, C, Opts);
timeout_action({{timeout, Name}, cancel}) -> {ok, {{timeout, Name}, cancel}};
timeout_action({{timeout, Name}, update, C}) ->
    {ok, {{timeout, Name}, {update, C}}};
timeout_action({{timeout, Name}, Time, C}) ->
    start_action({timeout, Name}, Time, C, []);
timeout_action({{timeout, Name}, Time, C, Opts}) ->
    start_action({timeout, Name}, Time, C, Opts);
timeout_action(_) -> error.

start_action(Type, Time, C, Opts0) ->
    Opts = listify(Opts0),
    Abs = case Opts of
              [] -> false;
              [{abs, B}] when is_boolean(B) -> B;
              _ -> bad
          end,
    ValidTime = Time =:= infinity orelse
        (is_integer(Time) andalso (Abs =:= true orelse Time >= 0)),
    case Abs =/= bad andalso ValidTime of
        true -> {ok, {Type, {start, Time, C, Abs}}};
        false -> error
    end.

%% The time-outs a transition sets. Of several actions for one time-out
%% the last counts. A state change first cancels the state time-out. An
%% event time-out is not started when events are waiting (any event
%% cancels it). A zero time-out waits, cancellable, to be handled after
%% the queued events and before the mailbox.
timeouts(Ts, StateChanged, S0) ->
    Last = lists:foldl(fun({Type, Op}, Acc) ->
                               lists:keydelete(Type, 1, Acc) ++ [{Type, Op}]
                       end, [], Ts),
    S1 = case StateChanged of
             true -> cancel_timer(state_timeout, S0);
             false -> S0
         end,
    {Event, Others} = case lists:keytake(timeout, 1, Last) of
                          {value, {timeout, Op}, Rest} -> {Op, Rest};
                          false -> {none, Last}
                      end,
    S2 = lists:foldl(fun timeout_op/2, S1, Others),
    event_timeout(Event, S2).

event_timeout(none, S) -> S;
event_timeout(cancel, S) -> cancel_timer(timeout, S);
event_timeout({update, C}, S) -> event_timeout({start, 0, C, false}, S);
event_timeout({start, infinity, _, _}, S) -> cancel_timer(timeout, S);
event_timeout(_, #s{queue = [_ | _]} = S) -> cancel_timer(timeout, S);
event_timeout(_, #s{zeros = [_ | _]} = S) -> cancel_timer(timeout, S);
event_timeout(Start, S) -> timeout_op({timeout, Start}, S).

timeout_op({Type, cancel}, S) ->
    cancel_timer(Type, S);
timeout_op({Type, {update, C}}, S) ->
    case S#s.timers of
        #{Type := {TRef, _}} ->
            S#s{timers = (S#s.timers)#{Type := {TRef, C}}};
        _ ->
            timeout_op({Type, {start, 0, C, false}}, S)
    end;
timeout_op({Type, {start, infinity, _, _}}, S) ->
    cancel_timer(Type, S);
timeout_op({Type, {start, 0, C, false}}, S) ->
    S1 = cancel_timer(Type, S),
    S1#s{timers = (S1#s.timers)#{Type => {zero, C}},
         zeros = S1#s.zeros ++ [Type]};
timeout_op({Type, {start, Time, C, Abs}}, S) ->
    S1 = cancel_timer(Type, S),
    TRef = erlang:start_timer(Time, self(), Type, [{abs, Abs}]),
    S1#s{timers = (S1#s.timers)#{Type => {TRef, C}}}.

%% Cancels a time-out; a time-out message that already arrived is taken
%% out of the mailbox, so it is never handled.
cancel_timer(Type, #s{timers = Timers} = S) ->
    case Timers of
        #{Type := {zero, _}} ->
            S#s{timers = maps:remove(Type, Timers),
                zeros = lists:delete(Type, S#s.zeros)};
        #{Type := {TRef, _}} ->
            case erlang:cancel_timer(TRef) of
                false -> receive {timeout, TRef, _} -> ok after 0 -> ok end;
                _ -> ok
            end,
            S#s{timers = maps:remove(Type, Timers)};
        _ ->
            S
    end.

%%% The end

terminate(Class, Reason, Stack, #s{module = Mod, state = State,
                                   data = Data} = S, Event) ->
    case erlang:function_exported(Mod, terminate, 3) of
        true ->
            try Mod:terminate(Reason, State, Data)
            catch
                throw:_ -> ok;
                C:R:ST ->
                    error_info(C, R, ST, S, Event),
                    erlang:raise(C, R, ST)
            end;
        false -> ok
    end,
    case {Class, Reason} of
        {exit, normal} -> ok;
        {exit, shutdown} -> ok;
        {exit, {shutdown, _}} -> ok;
        _ -> error_info(Class, Reason, Stack, S, Event)
    end,
    erlang:raise(Class, Reason, Stack).

error_info(Class, Reason, Stack, #s{name = Name, module = Mod, mode = Mode,
                                    enter = Enter, state = State, data = Data,
                                    queue = Q, postponed = P,
                                    timers = Timers}, Event) ->
    logger:error(#{label => {gen_statem, terminate},
                   name => Name,
                   queue => [E || E <- [Event], E =/= undefined] ++ Q,
                   postponed => P,
                   modules => [Mod],
                   callback_mode => case Enter of
                                        true -> [Mode, state_enter];
                                        false -> Mode
                                    end,
                   state => format_state(Mod, {State, Data}, Reason),
                   timeouts => {maps:size(Timers),
                                [{T, C} || {T, {_, C}} <- maps:to_list(Timers)]},
                   log => [],
                   reason => {Class, Reason, Stack},
                   client_info => undefined},
                 #{domain => [otp],
                   report_cb => fun gen_statem:format_log/2,
                   error_logger => #{tag => error}}).

format_state(Mod, {State, Data} = SD, Reason) ->
    case erlang:function_exported(Mod, format_status, 1) of
        true ->
            try Mod:format_status(#{state => State, data => Data,
                                    reason => Reason, queue => [],
                                    postponed => [], timeouts => [],
                                    log => []}) of
                #{state := St, data := D} -> {St, D};
                _ -> SD
            catch _:_ -> SD
            end;
        false -> SD
    end.

format_log(Report) ->
    {"~ts", [format_log(Report, #{})]}.

format_log(#{label := {gen_statem, terminate}, name := Name, queue := Q,
             postponed := P, modules := Mods, callback_mode := CM,
             state := State, timeouts := {N, Ts},
             reason := {Class, Reason, Stack}}, _Config) ->
    [io_lib:format("** State machine ~tp terminating~n", [Name]),
     case Q of
         [Event | _] -> io_lib:format("** Last event = ~tp~n", [Event]);
         [] -> ""
     end,
     io_lib:format("** When server state  = ~tp~n"
                   "** Reason for termination = ~w:~tp~n"
                   "** Callback modules = ~tp~n"
                   "** Callback mode = ~tp~n",
                   [State, Class, Reason, Mods, CM]),
     case Q of
         [_, _ | _] -> io_lib:format("** Queued = ~tp~n", [tl(Q)]);
         _ -> ""
     end,
     case P of
         [] -> "";
         _ -> io_lib:format("** Postponed = ~tp~n", [P])
     end,
     case Stack of
         [] -> "";
         _ -> io_lib:format("** Stacktrace =~n**  ~tp~n", [Stack])
     end,
     case N of
         0 -> "";
         _ -> io_lib:format("** Time-outs: ~p~n", [{N, Ts}])
     end].

%%% sys callbacks

system_continue(_Parent, _Debug, S) -> loop(S).

system_terminate(Reason, _Parent, _Debug, S) ->
    terminate(exit, Reason, [], S, undefined).

system_code_change(#s{module = Mod, state = State, data = Data} = S,
                   _Module, OldVsn, Extra) ->
    case erlang:function_exported(Mod, code_change, 4) of
        false -> {ok, S};
        true ->
            case catch Mod:code_change(OldVsn, State, Data, Extra) of
                {ok, NState, NData} ->
                    {ok, callback_mode(S#s{state = NState, data = NData})};
                Error -> Error
            end
    end.

system_get_state(#s{state = State, data = Data}) -> {ok, {State, Data}}.

system_replace_state(StateFun, #s{state = State, data = Data} = S) ->
    {NState, NData} = Result = StateFun({State, Data}),
    {ok, Result, S#s{state = NState, data = NData}}.

format_status(_Opt, [_PDict, SysState, Parent, _Debug,
                     #s{name = Name, module = Mod, state = State,
                        data = Data, postponed = P}]) ->
    Header = gen:format_status_header("Status for state machine", Name),
    [{header, Header},
     {data, [{"Status", SysState}, {"Parent", Parent},
             {"Logged Events", []}, {"Postponed", P}]},
     {data, [{"State", format_state(Mod, {State, Data}, normal)}]}].
